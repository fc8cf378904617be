/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * The {@code permafrost} command line, for the people who run Permafrost: take a snapshot of a local index
 * ({@code snapshot}), look into a repository ({@code list}, {@code info}), check it ({@code verify}: the store can do
 * what a repository needs, and every blob matches the checksums its snapshot recorded), remove a snapshot and the
 * blobs no other uses ({@code delete}), search snapshots through a temporary cache ({@code search}), and say what a
 * cache directory holds without opening it ({@code cache-info}). With {@code --format opensearch} (or
 * {@code elasticsearch}), {@code list}, {@code info} and {@code search} read a snapshot repository an OpenSearch or
 * Elasticsearch cluster wrote instead ({@code EngineRepository}, {@code EngineInfo},
 * {@code EngineSearch}).
 *
 * <p>{@link dev.permafrost.cli.PermafrostCli} is the entry point (picocli); each command is its own class. Exit
 * codes are a Unix tool's: 0 when all went well, 1 when something failed or damage was found, 2 when the command line
 * is wrong (an unknown option, a malformed repository URI, an invalid snapshot name, a query that does not parse).
 * Errors go to stderr, naming the store, snapshot and blob at fault, with credentials left out.
 */
package dev.permafrost.cli;
