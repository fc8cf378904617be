/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QuickstartTest {
  @Test
  void theQuickstartRunsAndTheWarmQueryNeedsNoBlobRequest(@TempDir Path work) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    long hits = Quickstart.run(work, 20_000, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(hits > 0, out);
    assertTrue(out.contains("blob requests by the reader open: 0\n"), out);
    String warm = out.lines().filter(l -> l.contains("warm query")).findFirst().orElseThrow();
    assertTrue(warm.contains("blob requests 0,"), warm);
    String cold = out.lines().filter(l -> l.contains("cold query")).findFirst().orElseThrow();
    assertTrue(!cold.contains("blob requests 0,"), cold);
    assertEquals(2, out.lines().filter(l -> l.contains(hits + " hits")).count(), out);
    assertTrue(!warm.contains("cache hits 0"), "the warm query is served from the cache, and the stats say so: " + warm);
  }

  @Test
  void theCommandLineIsParsedAsAUserExpects() {
    Quickstart.Options o = Quickstart.parse(new String[] {"--events", "5000", "--keep"});
    assertEquals(5000, o.events());
    assertTrue(o.keep() && o.work() == null && !o.help());
    o = Quickstart.parse(new String[] {"/tmp/x", "300"});
    assertEquals(Path.of("/tmp/x"), o.work());
    assertEquals(300, o.events());
    assertTrue(Quickstart.parse(new String[] {"--help"}).help());
    assertTrue(Quickstart.parse(new String[] {"-h"}).help());
    for (String[] bad : new String[][] {{"--events", "lots"}, {"--events"}, {"--frobnicate"}, {"a", "b"}, {"a", "1", "2"},
        {"--events=0"}}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Quickstart.parse(bad), String.join(" ", bad));
      assertTrue(!e.getMessage().isBlank(), e.getMessage());
    }
  }
}
