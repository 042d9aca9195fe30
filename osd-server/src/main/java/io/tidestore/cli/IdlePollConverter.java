package io.tidestore.cli;

import io.tidestore.osd.reactor.IdlePoll;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code --reactor-idle-poll-us}: microseconds or {@code always}. */
final class IdlePollConverter implements ITypeConverter<IdlePoll> {
  @Override
  public IdlePoll convert(String value) {
    try {
      return IdlePoll.parse(value);
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException(e.getMessage());
    }
  }
}
