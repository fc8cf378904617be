/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

/**
 * One shard an open scroll or point in time reads, with what it is mounted from: a snapshot never changes, so the same
 * shard mounted from the same snapshot is the same documents under the same numbers, whenever it is read again.
 *
 * @param index the index it belongs to
 * @param shard the name it is mounted under in the catalog
 * @param repository the repository of its snapshot
 * @param snapshot the snapshot it is mounted from
 */
record PinnedShard(String index, String shard, String repository, String snapshot) {}
