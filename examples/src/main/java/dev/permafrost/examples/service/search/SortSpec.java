/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.search;

import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;

/** The {@code sort} parameter: {@code _score}, or the timestamp field, newest first unless {@code :asc}. */
public final class SortSpec {
  private SortSpec() {}

  /**
   * The Lucene sort for {@code text}, or null for relevance ({@code _score}). Blank sorts by the timestamp, newest
   * first, as a log viewer does.
   *
   * @throws IllegalArgumentException naming what is accepted if {@code text} is none of it
   */
  public static Sort parse(String text, String timestampField) {
    String spec = text == null || text.isBlank() ? timestampField + ":desc" : text.trim();
    if (spec.equals("_score")) {
      return null;
    }
    String field = spec;
    boolean reverse = true;
    int colon = spec.lastIndexOf(':');
    if (colon > 0) {
      field = spec.substring(0, colon);
      String order = spec.substring(colon + 1);
      if (!order.equals("asc") && !order.equals("desc")) {
        throw new IllegalArgumentException("'sort' order must be asc or desc, got '" + order + "'");
      }
      reverse = order.equals("desc");
    }
    if (!field.equals(timestampField)) {
      throw new IllegalArgumentException("'sort' must be _score or " + timestampField + "[:asc|:desc], got '" + text + "'");
    }
    return new Sort(new SortField(timestampField, SortField.Type.LONG, reverse));
  }
}
