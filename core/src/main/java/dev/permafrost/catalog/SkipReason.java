/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

/**
 * Why a search skipped an index without searching it ({@link SearchResponse#skipReasons()},
 * {@link CollectedResponse#skipReasons()}); each is counted apart in the search's {@link SearchCost}.
 */
public enum SkipReason {
  /** Its recorded point ranges cannot match a range the query requires: it holds no match. */
  CANNOT_MATCH("its recorded point ranges cannot match the query"),
  /**
   * A top-N sorted on a point field stopped early: its recorded range cannot beat the hits found. With an exact total
   * it was counted all the same.
   */
  CANNOT_COMPETE("its recorded range cannot beat the hits found"),
  /** A glob selected it, and it was unmounted before the search reached it (or read its hits' fields). */
  UNMOUNTED("unmounted during the search");

  private final String message;

  SkipReason(String message) {
    this.message = message;
  }

  /** Why, in words, for a log or a response. */
  public String message() {
    return message;
  }
}
