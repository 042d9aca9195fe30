package io.tidestore.osd.pg;

import io.tidestore.cluster.wire.FailureMessages;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What an OSD's peer heartbeats need of its membership in the cluster.
 *
 * @param interval how often it pings each heartbeat peer (as it heartbeats the monitors)
 * @param grace the monitors' heartbeat grace, from their heartbeat replies; null until one answered
 *     (one setting, the monitors', decides both when the monitors and when the peers give up)
 * @param report sends a failure or alive report to the monitors; must not block
 */
public record FailureReporting(
    Duration interval, Supplier<Duration> grace, Consumer<FailureMessages.OsdFailure> report) {}
