/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code permafrost}: the command line. {@link #main} runs it and exits with its code; {@link #run} runs it in
 * process, writing to the given streams, and returns the code (0 ok, 1 failure, 2 usage; see {@link ExitCodes}).
 */
@Command(
    name = "permafrost",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "Takes, inspects, verifies, deletes and searches Lucene index snapshots in object storage"
        + " (file:, s3:, gs:, azblob: repository URIs), and looks into cache directories. With --format opensearch,"
        + " list, info and search read the snapshot repository of an OpenSearch or Elasticsearch cluster.",
    footer = {"", "Exit status: 0 if all went well, 1 if something failed (or verify found damage), 2 if the command"
        + " line is wrong.", "Run 'permafrost COMMAND --help' for a command's arguments and options."},
    subcommands = {
      SnapshotCommand.class,
      ListCommand.class,
      InfoCommand.class,
      VerifyCommand.class,
      DeleteCommand.class,
      SearchCommand.class,
      CacheInfoCommand.class,
      CommandLine.HelpCommand.class
    })
public final class PermafrostCli implements Runnable {
  /**
   * Lucene's notice that the vector incubator module is not added (it only speeds up vector search, and adding it
   * makes the JVM print a warning of its own): held here so that its level sticks.
   */
  private static final Logger VECTORIZATION_LOG =
      Logger.getLogger("org.apache.lucene.internal.vectorization");

  @Spec CommandSpec spec;

  private PermafrostCli() {}

  /**
   * Runs the command line and exits the JVM with its exit code. Lucene's notice about the vector module is silenced;
   * the jar's manifest enables native access for the class path (JDK 22+), so that the JVM does not warn about it.
   */
  public static void main(String[] args) {
    VECTORIZATION_LOG.setLevel(Level.SEVERE);
    Charset charset = Charset.defaultCharset();
    int code = run(new PrintWriter(new OutputStreamWriter(System.out, charset), true),
        new PrintWriter(new OutputStreamWriter(System.err, charset), true), args);
    System.exit(code);
  }

  /**
   * Runs the command line in this JVM: results on {@code out}, progress and errors on {@code err}.
   *
   * @return the exit code: 0 ok, 1 failure, 2 usage error
   */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    Failures failures = new Failures();
    CommandLine commandLine = new CommandLine(new PermafrostCli())
        .setOut(out)
        .setErr(err)
        .setExecutionExceptionHandler(failures)
        .setParameterExceptionHandler(failures);
    try {
      return commandLine.execute(args);
    } finally {
      out.flush();
      err.flush();
    }
  }

  /** {@code permafrost} alone: a usage error that lists the commands. */
  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "name a command: snapshot, list, info, verify, delete, search,"
        + " cache-info (or --help)");
  }
}
