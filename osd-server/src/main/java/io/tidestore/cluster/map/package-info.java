/**
 * The cluster map (issue 17): the OSDs (id, addresses, host, weight, up/down, in/out), the pools
 * and the map epoch, as immutable values; the commands that change it and the one pure function
 * that applies them ({@link io.tidestore.cluster.map.MapChanges}), and their binary codecs. The
 * monitors replicate it, OSDs and clients follow it, so it is shared by all three and depends on
 * the JDK only; nothing in it does I/O beyond byte streams.
 */
package io.tidestore.cluster.map;
