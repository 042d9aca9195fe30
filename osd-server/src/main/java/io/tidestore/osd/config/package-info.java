/**
 * The daemon's configuration file: parsing {@code key = value} lines into the settings the CLI
 * overrides, and the strict UTF-8 line reading of settings files ({@link
 * io.tidestore.osd.config.Utf8Lines}, also used by {@code osd.security} for the auth file). It
 * depends on no other tidestore package.
 */
package io.tidestore.osd.config;
