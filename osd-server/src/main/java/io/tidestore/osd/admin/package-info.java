/**
 * The daemon's HTTP endpoint (metrics, status, runtime cache policy), on a thread of its own. It
 * takes what it serves as functions from the daemon and depends on no other tidestore package.
 */
package io.tidestore.osd.admin;
