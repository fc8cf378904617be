/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No package of any module has classes that name each other in a cycle, checked on the sources of the checkout.
 *
 * <p>For every module (a directory under the checkout's root with a {@code pom.xml} and a {@code src/main/java}) and
 * every package of it, each top-level class (one .java file; a nested class counts as its file) is a node, and A
 * points to B when A's source, stripped of comments and of string, character and text-block literals, contains B as a
 * whole word: {@code new B()}, {@code B.CONST}, {@code B::m} and a type named in a signature alike. A strongly
 * connected component of more than one class is a cycle; the failure names the module, the package, the classes of
 * each cycle and one path around it, every step with the line that makes it.
 *
 * <p>{@link ArchitectureTest} checks core's compiled classes instead (and the store's layers, which need the
 * resolved types). Both exist because each sees what the other cannot: javac inlines a {@code static final}
 * constant of a primitive or String type into the class that reads it, so {@code case B.REASON ->} leaves no trace
 * of B in the bytecode and an ArchUnit rule passes over that cycle; the sources show it. The sources, on the other
 * hand, are read by word, not resolved: a word that happens to be a class name counts, an import of another
 * package's class of the same simple name included, which the bytecode gets right.
 */
class SourceCyclesTest {
  /** One package of one module: its top-level classes, by simple name, and their files. */
  record SourcePackage(String module, String name, Map<String, Path> classes) {
    @Override
    public String toString() {
      return module + ": " + name;
    }
  }

  /** A mention of {@code to} in the source of {@code from}: the first line that names it. */
  record Edge(String from, String to, int line, String text) {
    String reason() {
      return from + ".java:" + line + " names " + to + ": " + text;
    }
  }

  /** The checkout's root: the parent of core's module directory. */
  private static Path root() {
    return Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent();
  }

  /** The directories under the root with a {@code pom.xml} and a {@code src/main/java}, by their path from the root. */
  static Map<String, Path> modules() throws IOException {
    Path root = root();
    Map<String, Path> modules = new TreeMap<>();
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
        String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
        if (!dir.equals(root) && (name.equals("target") || name.equals("node_modules") || name.startsWith("."))) {
          return FileVisitResult.SKIP_SUBTREE;
        }
        if (Files.isRegularFile(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve("src/main/java"))) {
          modules.put(root.relativize(dir).toString().replace('\\', '/'), dir.resolve("src/main/java"));
        }
        return FileVisitResult.CONTINUE;
      }
    });
    return modules;
  }

  /** Every package (a directory with at least one class besides package-info) of every module. */
  static List<SourcePackage> packages() throws IOException {
    List<SourcePackage> packages = new ArrayList<>();
    for (Map.Entry<String, Path> module : modules().entrySet()) {
      Path sources = module.getValue();
      Map<Path, Map<String, Path>> byDirectory = new TreeMap<>();
      try (Stream<Path> files = Files.walk(sources)) {
        files.filter(f -> Files.isRegularFile(f) && f.toString().endsWith(".java")).forEach(f -> {
          String name = f.getFileName().toString();
          String simple = name.substring(0, name.length() - ".java".length());
          if (!simple.equals("package-info") && !simple.equals("module-info")) {
            byDirectory.computeIfAbsent(f.getParent(), d -> new TreeMap<>()).put(simple, f);
          }
        });
      }
      byDirectory.forEach((dir, classes) -> packages.add(new SourcePackage(module.getKey(),
          sources.relativize(dir).toString().replace('\\', '/').replace('/', '.'), classes)));
    }
    return packages;
  }

  /**
   * {@code source} with every comment and every string, character and text-block literal blanked out (line breaks
   * kept, so line numbers still hold).
   */
  static String strip(String source) {
    StringBuilder out = new StringBuilder(source.length());
    int i = 0;
    int n = source.length();
    while (i < n) {
      char c = source.charAt(i);
      char next = i + 1 < n ? source.charAt(i + 1) : 0;
      int end;
      if (c == '/' && next == '/') {
        end = source.indexOf('\n', i);
        end = end < 0 ? n : end;
      } else if (c == '/' && next == '*') {
        end = source.indexOf("*/", i + 2);
        end = end < 0 ? n : end + 2;
      } else if (source.startsWith("\"\"\"", i)) {
        end = closing(source, i + 3, "\"\"\"");
      } else if (c == '"' || c == '\'') {
        end = closing(source, i + 1, String.valueOf(c));
      } else {
        out.append(c);
        i++;
        continue;
      }
      for (int j = i; j < end; j++) {
        out.append(source.charAt(j) == '\n' ? '\n' : ' ');
      }
      i = end;
    }
    return out.toString();
  }

  /** Where the literal whose body starts at {@code from} ends: just past its unescaped {@code quote}. */
  private static int closing(String source, int from, String quote) {
    for (int i = from; i < source.length(); i++) {
      if (source.charAt(i) == '\\') {
        i++;
      } else if (source.startsWith(quote, i)) {
        return i + quote.length();
      }
    }
    return source.length();
  }

  /** For each other class of {@code pkg} that {@code from}'s source names, the first line that names it. */
  static List<Edge> edges(SourcePackage pkg, String from) {
    List<String> original;
    try {
      original = Files.readAllLines(pkg.classes().get(from));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String[] lines = strip(String.join("\n", original)).split("\n", -1);
    Map<String, Edge> found = new TreeMap<>();
    for (int l = 0; l < lines.length; l++) {
      String line = lines[l];
      int i = 0;
      while (i < line.length()) {
        if (!Character.isJavaIdentifierStart(line.charAt(i))) {
          i++;
          continue;
        }
        int start = i;
        while (i < line.length() && Character.isJavaIdentifierPart(line.charAt(i))) {
          i++;
        }
        String word = line.substring(start, i);
        if (!word.equals(from) && pkg.classes().containsKey(word) && !found.containsKey(word)) {
          String text = original.get(l).strip();
          found.put(word, new Edge(from, word, l + 1, text.length() > 110 ? text.substring(0, 107) + "..." : text));
        }
      }
    }
    return List.copyOf(found.values());
  }

  /** The strongly connected components of more than one class (Tarjan's algorithm), each sorted by name. */
  static List<Set<String>> cycles(Map<String, Map<String, Edge>> graph) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new TreeSet<>();
    List<Set<String>> components = new ArrayList<>();
    for (String v : graph.keySet()) {
      if (!index.containsKey(v)) {
        connect(v, graph, index, low, stack, onStack, components);
      }
    }
    components.removeIf(c -> c.size() < 2);
    components.sort((a, b) -> a.iterator().next().compareTo(b.iterator().next()));
    return components;
  }

  private static void connect(String v, Map<String, Map<String, Edge>> graph, Map<String, Integer> index,
      Map<String, Integer> low, Deque<String> stack, Set<String> onStack, List<Set<String>> components) {
    index.put(v, index.size());
    low.put(v, index.get(v));
    stack.push(v);
    onStack.add(v);
    for (String w : graph.get(v).keySet()) {
      if (!index.containsKey(w)) {
        connect(w, graph, index, low, stack, onStack, components);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      Set<String> component = new TreeSet<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        component.add(w);
      } while (!w.equals(v));
      components.add(component);
    }
  }

  /** One of the shortest cycles inside {@code component}: the first found through its classes in name order. */
  static List<Edge> shortestCycle(Set<String> component, Map<String, Map<String, Edge>> graph) {
    List<Edge> shortest = null;
    for (String start : component) {
      List<Edge> cycle = shortestCycleThrough(start, component, graph);
      if (shortest == null || cycle.size() < shortest.size()) {
        shortest = cycle;
      }
    }
    return shortest;
  }

  /** A shortest path from {@code start} back to itself inside {@code component} (breadth first). */
  private static List<Edge> shortestCycleThrough(String start, Set<String> component,
      Map<String, Map<String, Edge>> graph) {
    Map<String, Edge> reachedBy = new HashMap<>();
    Deque<String> queue = new ArrayDeque<>(List.of(start));
    while (!queue.isEmpty()) {
      String v = queue.poll();
      for (Edge e : graph.get(v).values()) {
        if (e.to().equals(start)) {
          List<Edge> path = new ArrayList<>(List.of(e));
          for (String u = v; !u.equals(start); u = reachedBy.get(u).from()) {
            path.add(reachedBy.get(u));
          }
          Collections.reverse(path);
          return path;
        }
        if (component.contains(e.to()) && !reachedBy.containsKey(e.to())) {
          reachedBy.put(e.to(), e);
          queue.add(e.to());
        }
      }
    }
    throw new AssertionError("no cycle through " + start + " in its own component " + component);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("packages")
  void noClassesOfAPackageNameEachOtherInACycle(SourcePackage pkg) {
    Map<String, Map<String, Edge>> graph = new TreeMap<>();
    for (String c : pkg.classes().keySet()) {
      graph.put(c, edges(pkg, c).stream().collect(Collectors.toMap(Edge::to, e -> e, (a, b) -> a, TreeMap::new)));
    }
    List<Set<String>> cycles = cycles(graph);
    if (!cycles.isEmpty()) {
      StringBuilder message = new StringBuilder("module " + pkg.module() + ", package " + pkg.name() + ": "
          + cycles.size() + (cycles.size() == 1 ? " cycle" : " cycles") + " of classes that name each other");
      for (Set<String> cycle : cycles) {
        List<Edge> path = shortestCycle(cycle, graph);
        message.append("\n  cycle ").append(cycle).append("\n    path ").append(path.get(0).from());
        path.forEach(e -> message.append(" -> ").append(e.to()));
        path.forEach(e -> message.append("\n      ").append(e.reason()));
      }
      message.append("\n  (move what the classes share to the one that owns the rule, or to a small class both use)");
      fail(message.toString());
    }
  }

  @Test
  void everyModuleWithSourcesHasPackagesScanned() throws Exception {
    Map<String, Path> modules = modules();
    Set<String> scanned = packages().stream().map(SourcePackage::module).collect(Collectors.toCollection(TreeSet::new));
    Set<String> withSources = new TreeSet<>();
    for (Map.Entry<String, Path> module : modules.entrySet()) {
      try (Stream<Path> files = Files.walk(module.getValue())) {
        if (files.anyMatch(f -> f.toString().endsWith(".java") && !f.endsWith("package-info.java"))) {
          withSources.add(module.getKey());
        }
      }
    }
    assertEquals(withSources, scanned, "the modules with classes and those that contributed a package");
    assertTrue(scanned.contains("core"), "core among the modules scanned under " + root() + ": " + scanned);
    Set<String> reactor = new TreeSet<>(ModuleGraphTest.modules());
    reactor.removeIf(m -> !Files.isDirectory(root().resolve(m).resolve("src/main/java")));
    assertTrue(scanned.containsAll(reactor), "every module of the root POM with sources is scanned: " + reactor
        + " scanned " + scanned);
    assertTrue(packages().size() >= 20, "at least 20 packages scanned under " + root() + ": " + packages());
  }

  @Test
  void stripBlanksCommentsAndLiteralsOnly() {
    String source = "class A { // B\n  /* C */ String s = \"D \\\" E\"; char c = '\\'';\n"
        + "  String t = \"\"\"\n    F \"G\" \\\"\"\"\n    \"\"\"; int x = H.K; Runnable r = I::m; }";
    String stripped = strip(source);
    assertEquals(source.lines().count(), stripped.lines().count(), "line breaks kept");
    for (String gone : List.of("B", "C", "D", "E", "F", "G")) {
      assertFalse(stripped.contains(gone), gone + " blanked out of: " + stripped);
    }
    for (String kept : List.of("class A", "String s", "char c", "String t", "H.K", "I::m")) {
      assertTrue(stripped.contains(kept), kept + " kept in: " + stripped);
    }
  }
}
