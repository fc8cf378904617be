/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.es;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The official Python client ({@code elasticsearch} 9.5.1 and its {@code elasticsearch.dsl}, in the virtual
 * environment {@code scripts/servers/python-clients.sh} makes) reads the service as it reads a real 9.3.3 node:
 * {@code src/test/python/test_python_client.py} runs under pytest against {@link NodeAndService}'s node and service,
 * and each of its cases is a test here, failing with the case's own report (the paths where the answers differ).
 * {@code PERMAFROST_PYTHON} names the python ({@code scripts/test} sets it); without it every case fails, never
 * skipped.
 */
class PythonClientSuiteTest {
  /** The suite's cases, at the least: a suite that collects fewer has lost some. */
  private static final int CASES = 30;

  /** A pytest case: its name, and its failure's report (null if it passed). */
  record Case(String name, String failure) {}

  @TestFactory
  List<DynamicTest> everyCallOfThePythonClientAnswersAsTheNode() throws Exception {
    String python = System.getenv("PERMAFROST_PYTHON");
    if (python == null || python.isBlank() || !Files.isExecutable(Path.of(python))) {
      fail("PERMAFROST_PYTHON does not name a python (" + python + "): the Python client suite needs the official"
          + " client's virtual environment. Make it with scripts/servers/python-clients.sh install and eval"
          + " \"$(scripts/test-servers.sh env)\", or run scripts/test");
    }
    NodeAndService shared = NodeAndService.shared();
    Path suite = Path.of(System.getProperty("basedir", ".")).resolve("src/test/python").toAbsolutePath();
    Path report = Path.of("target", "python-client-suite.xml").toAbsolutePath();
    Path output = Path.of("target", "python-client-suite.txt").toAbsolutePath();
    Files.deleteIfExists(report);
    ProcessBuilder pytest = new ProcessBuilder(python, "-m", "pytest", "-p", "no:cacheprovider", "-rA",
        "--junitxml=" + report, "test_python_client.py").directory(suite.toFile()).redirectErrorStream(true)
        .redirectOutput(output.toFile());
    pytest.environment().put("PERMAFROST_NODE_URL", shared.node().uri().toString());
    pytest.environment().put("PERMAFROST_SERVICE_URL", shared.serviceUri().toString());
    pytest.environment().put("PYTHONDONTWRITEBYTECODE", "1");
    Process process = pytest.start();
    if (!process.waitFor(10, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      fail("pytest did not end in 10 minutes; its output: " + output);
    }
    // 0: every case passed, 1: some failed; anything else (collection or usage error) is the suite's own fault
    assertTrue(process.exitValue() <= 1, "pytest ended with " + process.exitValue() + ":\n" + tail(output));
    List<Case> cases = cases(report);
    assertTrue(cases.size() >= CASES, "pytest ran " + cases.size() + " cases, fewer than " + CASES + ":\n"
        + tail(output));
    assertEquals(process.exitValue() == 1, cases.stream().anyMatch(c -> c.failure() != null), tail(output));
    List<DynamicTest> tests = new ArrayList<>();
    for (Case c : cases) {
      tests.add(DynamicTest.dynamicTest(c.name(), () -> {
        if (c.failure() != null) {
          fail(c.name() + " answered otherwise through the Python client than the node's:\n" + c.failure());
        }
      }));
    }
    return tests;
  }

  /** The cases of pytest's JUnit XML report; a skipped case counts as failed (nothing here may be skipped). */
  private static List<Case> cases(Path report) throws Exception {
    var document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(report.toFile());
    NodeList testcases = document.getElementsByTagName("testcase");
    List<Case> cases = new ArrayList<>();
    for (int i = 0; i < testcases.getLength(); i++) {
      Element testcase = (Element) testcases.item(i);
      String failure = null;
      for (String outcome : List.of("failure", "error", "skipped")) {
        NodeList found = testcase.getElementsByTagName(outcome);
        if (found.getLength() > 0) {
          Element e = (Element) found.item(0);
          failure = outcome + ": " + e.getAttribute("message") + "\n" + e.getTextContent();
          break;
        }
      }
      cases.add(new Case(testcase.getAttribute("name"), failure));
    }
    return cases;
  }

  private static String tail(Path output) throws IOException {
    List<String> lines = Files.readString(output, StandardCharsets.UTF_8).lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
  }
}
