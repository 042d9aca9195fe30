/**
 * The daemon's configuration file: parsing {@code key = value} lines into the settings the CLI
 * overrides. It depends on no other tidestore package.
 */
package io.tidestore.osd.config;
