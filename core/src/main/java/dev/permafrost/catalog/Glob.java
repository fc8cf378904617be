/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A name or a glob, as the catalog, the command line, Spark, Spring and the service take the names of indices and
 * snapshots: {@code *} stands for any run of characters (none too), {@code ?} for one; every other character, the
 * regular expression's included, for itself. Text without {@code *} or {@code ?} is a plain name, which matches
 * only itself. Matching is whole-name and case-sensitive.
 *
 * <p>Elasticsearch's index expressions and field patterns are not these: there only {@code *} is a wildcard.
 */
public final class Glob {
  private final String text;
  /** The compiled glob, or null for a plain name. */
  private final Pattern pattern;

  private Glob(String text, Pattern pattern) {
    this.text = text;
    this.pattern = pattern;
  }

  /** {@code text} as a glob (or a plain name, if it has no {@code *} and no {@code ?}). */
  public static Glob of(String text) {
    Objects.requireNonNull(text, "text");
    if (!isGlob(text)) {
      return new Glob(text, null);
    }
    StringBuilder regex = new StringBuilder(text.length() + 8);
    int literal = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '*' || c == '?') {
        if (i > literal) {
          regex.append(Pattern.quote(text.substring(literal, i)));
        }
        regex.append(c == '*' ? ".*" : ".");
        literal = i + 1;
      }
    }
    if (literal < text.length()) {
      regex.append(Pattern.quote(text.substring(literal)));
    }
    return new Glob(text, Pattern.compile(regex.toString(), Pattern.DOTALL));
  }

  /** Whether {@code text} has a glob character ({@code *} or {@code ?}). */
  public static boolean isGlob(String text) {
    return text.indexOf('*') >= 0 || text.indexOf('?') >= 0;
  }

  /** Whether any of {@code globs} matches {@code name}. */
  public static boolean anyMatches(Collection<Glob> globs, String name) {
    for (Glob g : globs) {
      if (g.matches(name)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The names among {@code names} that any of {@code patterns} matches, in their order, each once.
   *
   * @throws E {@code missing}'s exception for the first plain name of {@code patterns} not among {@code names}
   */
  public static <E extends Exception> List<String> select(Collection<String> patterns, Collection<String> names,
      Function<String, E> missing) throws E {
    List<Glob> globs = new ArrayList<>(patterns.size());
    for (String p : patterns) {
      Glob glob = of(p);
      if (glob.isPlainName() && !names.contains(p)) {
        throw missing.apply(p);
      }
      globs.add(glob);
    }
    List<String> selected = new ArrayList<>();
    for (String name : names) {
      if (anyMatches(globs, name)) {
        selected.add(name);
      }
    }
    return selected;
  }

  /** Whether this is a plain name, with no glob character: it matches only itself. */
  public boolean isPlainName() {
    return pattern == null;
  }

  /** Whether this matches the whole of {@code name}. */
  public boolean matches(String name) {
    return pattern == null ? text.equals(name) : pattern.matcher(name).matches();
  }

  /** The names among {@code names} this matches, in their order. */
  public List<String> filter(Collection<String> names) {
    List<String> matched = new ArrayList<>();
    for (String name : names) {
      if (matches(name)) {
        matched.add(name);
      }
    }
    return matched;
  }

  /** The text it was made of. */
  @Override
  public String toString() {
    return text;
  }
}
