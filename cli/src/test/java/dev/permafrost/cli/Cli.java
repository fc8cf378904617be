/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the command line in this JVM, capturing what it prints and its exit code. */
final class Cli {
  private Cli() {}

  /** What one run printed, and its exit code. */
  record Run(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = PermafrostCli.run(new PrintWriter(out), new PrintWriter(err), args);
    return new Run(code, out.toString(), err.toString());
  }
}
