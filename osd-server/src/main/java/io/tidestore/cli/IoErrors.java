package io.tidestore.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * One line for an I/O failure a user can act on: the JDK's file-system exceptions carry only the
 * path as their message ("cannot start: /var/tmp/x" says nothing), so this names what went wrong.
 */
final class IoErrors {
  private IoErrors() {}

  static String describe(IOException e) {
    if (!(e instanceof FileSystemException fs)) {
      return e.getMessage();
    }
    String what =
        switch (fs) {
          case FileAlreadyExistsException x -> "exists and is not a directory";
          case NoSuchFileException x -> "no such file or directory";
          case AccessDeniedException x -> "permission denied";
          case NotDirectoryException x -> "not a directory";
          default -> fs.getReason() != null ? fs.getReason() : fs.getClass().getSimpleName();
        };
    String file = fs.getFile() == null ? "" : fs.getFile();
    String other = fs.getOtherFile() == null ? "" : " -> " + fs.getOtherFile();
    return file + other + ": " + what;
  }
}
