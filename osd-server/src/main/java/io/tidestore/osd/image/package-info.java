/**
 * Block images striped over objects, as RBD does: the layout, the header objects, the rules to
 * create, resize, list and remove images ({@link io.tidestore.osd.image.ImageAdmin}), the block
 * device a gateway exports ({@link io.tidestore.osd.image.BlockImage}) with its fast data path, and
 * the catalog of images the daemon exports. It depends only on {@code osd.ops} and the store API;
 * the NBD gateway depends on it, never the other way round.
 */
package io.tidestore.osd.image;
