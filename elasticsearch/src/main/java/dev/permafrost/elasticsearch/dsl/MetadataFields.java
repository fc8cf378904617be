/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import java.util.List;

/**
 * The metadata fields an Elasticsearch 9.3.3 node lists in {@code _field_caps} for every index of the standard mode,
 * whatever its mapping, with the type, {@code searchable} and {@code aggregatable} it gives them (as read from a
 * node's answer to {@code fields=*}); the service claims that version, so it lists them alike.
 */
final class MetadataFields {
  /** One metadata field as {@code _field_caps} lists it. */
  record Field(String name, String type, boolean searchable, boolean aggregatable) {}

  static final List<Field> ALL = List.of(
      new Field("_data_stream_timestamp", "_data_stream_timestamp", false, false),
      new Field("_doc_count", "integer", false, false),
      new Field("_field_names", "_field_names", true, false),
      new Field("_id", "_id", true, false),
      new Field("_ignored", "_ignored", true, true),
      new Field("_ignored_source", "_ignored_source", false, false),
      new Field("_index", "_index", true, true),
      new Field("_index_mode", "_index_mode", true, true),
      new Field("_nested_path", "_nested_path", true, false),
      new Field("_routing", "_routing", true, false),
      new Field("_seq_no", "_seq_no", true, true),
      new Field("_source", "_source", false, false),
      new Field("_version", "_version", false, true));

  private MetadataFields() {}
}
