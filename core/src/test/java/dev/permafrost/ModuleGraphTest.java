/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The modules' graph, read from the POMs of the checkout: every module has a level, and no module depends (in any
 * scope) on a module of its own level or above. Core is at the bottom and depends on no other module; what extends
 * it sits above it; what assembles those above them; the example application on top.
 */
class ModuleGraphTest {
  /** Each module's level, from the bottom. */
  static final Map<String, Integer> LEVELS = Map.ofEntries(
      Map.entry("bom", 0), Map.entry("core", 0), Map.entry("engine-fixture", 0),
      Map.entry("elasticsearch-fixture", 0), Map.entry("elasticsearch8-fixture", 0),
      Map.entry("elasticsearch93-fixture", 0), Map.entry("elasticsearch95-fixture", 0),
      Map.entry("opensearch2-fixture", 0), Map.entry("opensearch39-fixture", 0),
      Map.entry("sample-data", 1), Map.entry("micrometer", 1), Map.entry("blobstore-s3", 1),
      Map.entry("blobstore-gcs", 1), Map.entry("blobstore-azure", 1), Map.entry("elasticsearch", 1),
      Map.entry("spring-boot-autoconfigure", 2), Map.entry("spark", 2), Map.entry("cli", 2), Map.entry("jmh", 2),
      Map.entry("integration-tests", 2),
      Map.entry("spring-boot-starter", 3),
      Map.entry("examples", 4));

  private static final String PREFIX = "permafrost-";

  /** The checkout's root: the parent of core's module directory. */
  private static Path root() {
    return Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent();
  }

  private static Document parse(Path pom) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return factory.newDocumentBuilder().parse(pom.toFile());
  }

  /** The direct children of {@code parent} named {@code name}. */
  private static List<Element> children(Node parent, String name) {
    List<Element> found = new ArrayList<>();
    NodeList nodes = parent.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      if (nodes.item(i) instanceof Element e && e.getTagName().equals(name)) {
        found.add(e);
      }
    }
    return found;
  }

  private static String text(Element parent, String name) {
    List<Element> e = children(parent, name);
    return e.isEmpty() ? null : e.get(0).getTextContent().trim();
  }

  /** The modules of the reactor, as the root POM lists them. */
  static List<String> modules() throws Exception {
    Element project = parse(root().resolve("pom.xml")).getDocumentElement();
    List<String> modules = new ArrayList<>();
    for (Element list : children(project, "modules")) {
      for (Element m : children(list, "module")) {
        modules.add(m.getTextContent().trim());
      }
    }
    return modules;
  }

  /** The Permafrost modules {@code module} depends on, in any scope (its dependencies, not its managed ones). */
  static List<String> dependencies(String module) throws Exception {
    Element project = parse(root().resolve(module).resolve("pom.xml")).getDocumentElement();
    List<String> found = new ArrayList<>();
    for (Element list : children(project, "dependencies")) {
      for (Element d : children(list, "dependency")) {
        String artifact = text(d, "artifactId");
        if ("dev.permafrost".equals(text(d, "groupId")) && artifact.startsWith(PREFIX)) {
          found.add(artifact.substring(PREFIX.length()));
        }
      }
    }
    return found;
  }

  @Test
  void everyModuleHasALevel() throws Exception {
    assertEquals(new TreeSet<>(LEVELS.keySet()), new TreeSet<>(modules()),
        "the reactor's modules and the levels of this test (give a new module its level)");
  }

  @Test
  void noModuleDependsOnOneAtItsLevelOrAbove() throws Exception {
    Map<String, List<String>> upward = new TreeMap<>();
    for (String module : modules()) {
      for (String dependency : dependencies(module)) {
        Integer level = LEVELS.get(dependency);
        if (level == null || level >= LEVELS.get(module)) {
          upward.computeIfAbsent(module, m -> new ArrayList<>()).add(dependency + " (level " + level + ")");
        }
      }
    }
    assertTrue(upward.isEmpty(), "dependencies on modules not below their own level: " + upward);
  }

  @Test
  void coreDependsOnNoOtherModule() throws Exception {
    assertEquals(List.of(), dependencies("core"));
    assertTrue(Files.exists(root().resolve("core").resolve("pom.xml")));
  }
}
