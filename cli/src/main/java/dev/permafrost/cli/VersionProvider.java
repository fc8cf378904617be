/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import org.apache.lucene.util.Version;
import picocli.CommandLine.IVersionProvider;

/** {@code permafrost --version}: the build's version (from a resource Maven fills in), Lucene's and Java's. */
final class VersionProvider implements IVersionProvider {
  static final String RESOURCE = "permafrost-cli.properties";

  /** The version this command line was built as, e.g. {@code 0.1.0-SNAPSHOT}. */
  static String version() {
    Properties p = new Properties();
    try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE)) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // unreadable: fall through to "unknown"
    }
    return p.getProperty("version", "unknown");
  }

  @Override
  public String[] getVersion() {
    return new String[] {
      "permafrost " + version(),
      "Lucene " + Version.LATEST + ", Java " + Runtime.version() + " (" + System.getProperty("java.vendor", "?") + ")"
    };
  }
}
