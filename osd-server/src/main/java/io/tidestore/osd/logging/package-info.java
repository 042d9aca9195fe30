/**
 * The daemon's log format and handlers (java.util.logging). It depends on no other tidestore
 * package.
 */
package io.tidestore.osd.logging;
