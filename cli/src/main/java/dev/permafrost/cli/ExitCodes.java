/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

/** The exit codes of every command, as a Unix tool's. */
final class ExitCodes {
  /** All went well. */
  static final int OK = 0;
  /** Something failed: a store, a snapshot, damage that {@code verify} found. */
  static final int FAILURE = 1;
  /** The command line is wrong: unknown option, missing argument, malformed URI, invalid name, bad query. */
  static final int USAGE = 2;

  private ExitCodes() {}
}
