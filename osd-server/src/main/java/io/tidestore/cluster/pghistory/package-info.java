/**
 * The monitors' record of each PG's newest activation (docs/cluster.md "PG history"), kept beside
 * the map: above both the map and placement, since it is keyed by PG.
 */
package io.tidestore.cluster.pghistory;
