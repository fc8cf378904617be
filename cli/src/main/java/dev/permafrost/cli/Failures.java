/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import java.io.PrintWriter;
import java.nio.file.FileSystemException;
import java.util.HashSet;
import java.util.Set;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine;

/**
 * Turns what went wrong into a Unix tool's answer: one line on stderr, {@code permafrost <command>: <message>}, and
 * an exit code: {@link ExitCodes#USAGE} for a wrong command line (with a pointer to {@code --help}),
 * {@link ExitCodes#FAILURE} for anything that failed while running. Messages come from the library, which names the
 * store, snapshot and blob at fault and never prints credentials; the causes' messages follow when they add to it.
 * Stack traces only with the environment variable {@code PERMAFROST_STACKTRACE=1}.
 */
final class Failures implements IExecutionExceptionHandler, IParameterExceptionHandler {

  @Override
  public int handleParseException(ParameterException e, String[] args) {
    CommandLine cmd = e.getCommandLine();
    PrintWriter err = cmd.getErr();
    err.println(prefix(cmd) + e.getMessage());
    err.println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for more information.");
    err.flush();
    return ExitCodes.USAGE;
  }

  @Override
  public int handleExecutionException(Exception e, CommandLine cmd, ParseResult parseResult) {
    PrintWriter err = cmd.getErr();
    if (e instanceof UsageException) {
      err.println(prefix(cmd) + e.getMessage());
      err.println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for more information.");
      err.flush();
      return ExitCodes.USAGE;
    }
    err.println(prefix(cmd) + describe(e));
    if ("1".equals(System.getenv("PERMAFROST_STACKTRACE"))) {
      e.printStackTrace(err);
    }
    err.flush();
    return ExitCodes.FAILURE;
  }

  /** The failure's message, and each cause's that does not begin as something already said. */
  static String describe(Throwable e) {
    StringBuilder sb = new StringBuilder(message(e));
    Set<Throwable> seen = new HashSet<>();
    for (Throwable c = e.getCause(); c != null && seen.add(c); c = c.getCause()) {
      String m = message(c);
      String head = m.substring(0, Math.min(m.length(), 60)); // a cause the message already carries, retold
      if (!sb.toString().contains(head)) {
        sb.append("\n  caused by: ").append(c.getClass().getSimpleName()).append(": ").append(m);
      }
    }
    return sb.toString();
  }

  private static String message(Throwable e) {
    String m = e.getMessage();
    if (m == null || m.isBlank()) {
      return e.getClass().getName();
    }
    // a file system failure's message is only the path: say what happened to it
    return e instanceof FileSystemException ? e.getClass().getSimpleName() + ": " + m : m;
  }

  private static String prefix(CommandLine cmd) {
    return cmd.getCommandSpec().qualifiedName() + ": ";
  }
}
