/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * A Spark 4 DataSource V2 named {@code permafrost} over the snapshots of a Permafrost repository.
 *
 * <p>The public classes are what Spark instantiates: {@link dev.permafrost.spark.PermafrostDataSource} (found by its
 * short name), {@link dev.permafrost.spark.PermafrostPlugin} (closes each executor's cache when it stops) and
 * {@link dev.permafrost.spark.BytesFetchedMetric}. The rest is package-private:
 *
 * <ul>
 *   <li>driver: {@code SourceOptions} (the options), {@code IndexFields}/{@code FieldInfosReader} (the schema from a
 *       snapshot's field infos), {@code PermafrostScanBuilder} (push-downs), {@code PredicateTranslator} and
 *       {@code Condition} (filters as Lucene queries), {@code SnapshotSelection} and {@code Pruning} (snapshots
 *       skipped by their manifests), {@code Affinity} and {@code ExecutorLocations} (preferred executors);
 *   <li>executors: {@code ExecutorNode} (one cache and reader pool per JVM), {@code SnapshotReader} and its
 *       {@code HitReader}, {@code CountReader}, {@code HistogramReader}, with {@code RowAssembler} and
 *       {@code Values} (Lucene values as Spark's).
 * </ul>
 */
package dev.permafrost.spark;
