/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.cli;

import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.snapshot.ChunkTable;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotManifest;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;

/**
 * Checks one file of a snapshot against everything its manifest recorded: for a blob, its length, its chunk table
 * (kept in the manifest, or a blob read and checked itself in a snapshot of format 2) and every chunk's CRC32C, or the whole-file CRC32C of a file of one chunk, the Lucene
 * checksum of the whole file and its footer, and the bytes the manifest keeps of it; for a file kept whole in the
 * manifest, its Lucene checksum. Reads each blob once, streaming. What is wrong comes back as problems, each naming
 * what is at fault; a store that cannot be read is a problem too.
 */
final class BlobChecker {
  private static final int BUFFER = 64 << 10;
  /** At most this many bad chunks of one blob are named; the rest are counted. */
  private static final int NAMED_CHUNKS = 3;

  private final BlobStore store;

  BlobChecker(BlobStore store) {
    this.store = store;
  }

  /** What a check found: the bytes read from the store, and what is wrong (empty if nothing). */
  record Result(long bytesRead, List<String> problems) {
    boolean ok() {
      return problems.isEmpty();
    }
  }

  /** Checks {@code file} of {@code manifest}. */
  Result check(SnapshotManifest manifest, FileEntry file) {
    if (file.isKeptWhole()) {
      return new Result(0, checkKeptWhole(file));
    }
    List<String> problems = new ArrayList<>();
    String tableBlob = manifest.chunkTableBlob(file);
    ChunkTable table = file.chunkTable(); // null unless the manifest keeps it
    long bytesRead = 0;
    if (tableBlob != null) {
      try {
        byte[] bytes;
        try (InputStream in = store.read(tableBlob)) {
          bytes = in.readAllBytes();
        }
        bytesRead += bytes.length;
        table = ChunkTable.parse(bytes, file.name(), file.length(), file.checksum(), manifest.chunkSize(),
            store.describe() + " blob " + tableBlob);
      } catch (BlobNotFoundException e) {
        problems.add("chunk table blob " + tableBlob + " is missing");
      } catch (CorruptIndexException e) {
        problems.add("chunk table blob " + tableBlob + " is damaged: " + e.getMessage());
      } catch (IOException e) {
        problems.add("chunk table blob " + tableBlob + " cannot be read: " + Failures.describe(e));
      }
    }
    try (InputStream in = store.read(file.blobName())) {
      bytesRead += streamAndCheck(manifest, file, table, in, problems);
    } catch (BlobNotFoundException e) {
      problems.add("blob " + file.blobName() + " is missing");
    } catch (BlobStoreException e) {
      problems.add("blob " + file.blobName() + " cannot be read: " + e.detail());
    } catch (IOException e) {
      problems.add("blob " + file.blobName() + " cannot be read: " + Failures.describe(e));
    }
    return new Result(bytesRead, problems);
  }

  private static List<String> checkKeptWhole(FileEntry file) {
    byte[] bytes = file.wholeBytes();
    if (bytes.length < CodecUtil.footerLength()) {
      return List.of("the manifest keeps " + bytes.length + " bytes of it, shorter than a Lucene footer");
    }
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, bytes.length - Long.BYTES);
    long footer = footerChecksum(bytes, bytes.length - Long.BYTES);
    if (crc.getValue() != file.checksum() || footer != file.checksum()) {
      return List.of("the bytes the manifest keeps have Lucene checksum " + hex(crc.getValue()) + " and footer "
          + hex(footer) + ", the manifest records " + hex(file.checksum()));
    }
    return List.of();
  }

  /** Reads the blob through, checking as it goes; returns the bytes read. */
  private long streamAndCheck(SnapshotManifest manifest, FileEntry file, ChunkTable table, InputStream in,
      List<String> problems) throws IOException {
    long length = file.length();
    int chunkSize = manifest.chunkSize();
    CRC32 lucene = new CRC32();
    CRC32C chunkCrc = new CRC32C();
    byte[] tail = new byte[Long.BYTES]; // the last 8 bytes seen: the footer's checksum once the blob is read
    byte[] buffer = new byte[BUFFER];
    List<FileEntry.WarmRange> warm = file.warmRanges();
    byte[][] warmSeen = new byte[warm.size()][];
    for (int i = 0; i < warm.size(); i++) {
      warmSeen[i] = new byte[warm.get(i).bytes().length];
    }
    int badChunks = 0;
    List<String> named = new ArrayList<>();
    long position = 0;
    int n;
    while ((n = in.read(buffer)) > 0) {
      long start = position;
      int within = (int) Math.max(0, Math.min(n, length - Long.BYTES - start)); // bytes the Lucene checksum covers
      if (within > 0) {
        lucene.update(buffer, 0, within);
      }
      keepTail(tail, buffer, n, start);
      copyWarm(warm, warmSeen, buffer, n, start);
      if (chunkSize > 0) {
        int offset = 0;
        while (offset < n) {
          long p = start + offset;
          int take = (int) Math.min(n - offset, chunkSize - (p % chunkSize));
          chunkCrc.update(buffer, offset, take);
          offset += take;
          long end = p + take;
          if (end % chunkSize == 0 || end == length) {
            int chunk = (int) ((end - 1) / chunkSize);
            int actual = (int) chunkCrc.getValue();
            chunkCrc.reset();
            Integer expected = table != null && chunk < table.chunkCount() ? Integer.valueOf(table.checksum(chunk))
                : table == null && !ChunkTable.hasTable(length, chunkSize) && chunk == 0 ? file.wholeCrc32c() : null;
            if (expected != null && expected != actual) {
              if (badChunks++ < NAMED_CHUNKS) {
                long from = (long) chunk * chunkSize;
                named.add("chunk " + chunk + " (" + BlobStoreException.range(from, Math.min(chunkSize, length - from))
                    + ") has crc32c " + hex(actual) + ", " + (table != null ? "its chunk table records " : "the manifest records ")
                    + hex(expected));
              }
            }
          }
        }
      }
      position += n;
    }
    if (position != length) {
      problems.add("blob " + file.blobName() + " is " + position + " bytes long, the manifest records " + length);
      return position;
    }
    if (badChunks > 0) {
      problems.add("blob " + file.blobName() + ": " + String.join("; ", named)
          + (badChunks > NAMED_CHUNKS ? "; and " + (badChunks - NAMED_CHUNKS) + " more damaged chunks" : ""));
    }
    long footer = footerChecksum(tail, 0);
    if (lucene.getValue() != file.checksum() || footer != file.checksum()) {
      problems.add("blob " + file.blobName() + " has Lucene checksum " + hex(lucene.getValue()) + " and footer "
          + hex(footer) + ", the manifest records " + hex(file.checksum()));
    }
    for (int i = 0; i < warm.size(); i++) {
      if (!Arrays.equals(warm.get(i).bytes(), warmSeen[i])) {
        problems.add("blob " + file.blobName() + ": " + BlobStoreException.range(warm.get(i).offset(), warm.get(i).bytes().length)
            + " differ from the bytes the manifest keeps of them");
      }
    }
    return position;
  }

  /** Keeps the last 8 bytes of the stream in {@code tail}, in order. */
  private static void keepTail(byte[] tail, byte[] buffer, int n, long start) {
    if (n >= Long.BYTES) {
      System.arraycopy(buffer, n - Long.BYTES, tail, 0, Long.BYTES);
    } else {
      System.arraycopy(tail, n, tail, 0, Long.BYTES - n);
      System.arraycopy(buffer, 0, tail, Long.BYTES - n, n);
    }
  }

  /** Copies the part of {@code buffer} (at {@code start} in the blob) that falls in each warm range. */
  private static void copyWarm(List<FileEntry.WarmRange> warm, byte[][] seen, byte[] buffer, int n, long start) {
    long end = start + n;
    for (int i = 0; i < warm.size(); i++) {
      long from = Math.max(start, warm.get(i).offset());
      long to = Math.min(end, warm.get(i).end());
      if (from < to) {
        System.arraycopy(buffer, (int) (from - start), seen[i], (int) (from - warm.get(i).offset()), (int) (to - from));
      }
    }
  }

  private static long footerChecksum(byte[] bytes, int offset) {
    long v = 0;
    for (int i = 0; i < Long.BYTES; i++) {
      v = (v << 8) | (bytes[offset + i] & 0xFFL);
    }
    return v;
  }

  private static String hex(long value) {
    return String.format(Locale.ROOT, "%08x", value);
  }

  private static String hex(int value) {
    return String.format(Locale.ROOT, "%08x", value);
  }
}
