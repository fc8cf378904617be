/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.snapshot;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.store.BufferedIndexInput;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;

/**
 * A read-only view of a directory that records which byte ranges of each file are read, including through
 * clones and slices. Opening a {@code DirectoryReader} through it tells exactly which bytes a cold open needs; a
 * search run after {@link #record()} starts again tells which bytes that search reads. Ranges are recorded at the
 * granularity of a small read buffer, so they may run a few bytes past what was read. A snapshot's manifest keeps
 * what it records of an open; so does a mount of another format's snapshot that keeps what opening reads (an
 * engine's shard, see {@link SnapshotSource#checkAndKeep}).
 */
public final class ReadRecordingDirectory extends FilterDirectory {
  private static final int BUFFER_SIZE = 64;
  /** Where reads are recorded now, by file name; null while not recording. */
  private volatile Map<String, List<long[]>> current = new ConcurrentHashMap<>();

  /** A view of {@code in} that records from now on. */
  public ReadRecordingDirectory(Directory in) {
    super(in);
  }

  /** Stops recording and returns the reads recorded since the directory was made or {@link #record()} was called. */
  public Reads stopRecording() {
    Map<String, List<long[]>> reads = current;
    current = null;
    return new Reads(reads == null ? Map.of() : reads);
  }

  /** Records from now on, afresh. */
  void record() {
    current = new ConcurrentHashMap<>();
  }

  /** The ranges one recording saw, by file. */
  public static final class Reads {
    private final Map<String, List<long[]>> ranges;

    private Reads(Map<String, List<long[]>> ranges) {
      this.ranges = ranges;
    }

    /** The files read. */
    public Set<String> files() {
      return ranges.keySet();
    }

    /** The ranges read from {@code file}, as [start, end) pairs, sorted and merged (gaps up to {@code gap} closed). */
    public List<long[]> rangesOf(String file, long gap) {
      List<long[]> raw = ranges.get(file);
      List<long[]> merged = new ArrayList<>();
      if (raw == null) {
        return merged;
      }
      List<long[]> sorted;
      synchronized (raw) {
        sorted = new ArrayList<>(raw);
      }
      sorted.sort((a, b) -> Long.compare(a[0], b[0]));
      for (long[] r : sorted) {
        if (!merged.isEmpty() && r[0] <= merged.getLast()[1] + gap) {
          merged.getLast()[1] = Math.max(merged.getLast()[1], r[1]);
        } else {
          merged.add(new long[] {r[0], r[1]});
        }
      }
      return merged;
    }
  }

  private void recordRead(String file, long from, long to) {
    Map<String, List<long[]>> reads = current;
    if (reads != null) {
      List<long[]> fileRanges = reads.computeIfAbsent(file, k -> new ArrayList<>());
      synchronized (fileRanges) {
        fileRanges.add(new long[] {from, to});
      }
    }
  }

  @Override
  public IndexInput openInput(String name, IOContext context) throws IOException {
    IndexInput delegate = in.openInput(name, context);
    // described as the input it reads: an error Lucene raises while recording names the file as it would unrecorded
    return new RecordingInput(delegate.toString(), delegate, name, 0, delegate.length(), true);
  }

  @Override
  public void deleteFile(String name) {
    throw new UnsupportedOperationException("read-only");
  }

  @Override
  public void rename(String source, String dest) {
    throw new UnsupportedOperationException("read-only");
  }

  @Override
  public void sync(Collection<String> names) {
    // nothing is written through this view
  }

  private final class RecordingInput extends BufferedIndexInput {
    private final IndexInput delegate;
    private final String file;
    private final long offset;
    private final long length;
    private final boolean owner;

    RecordingInput(String description, IndexInput delegate, String file, long offset, long length, boolean owner) {
      super(description, BUFFER_SIZE);
      this.delegate = delegate;
      this.file = file;
      this.offset = offset;
      this.length = length;
      this.owner = owner;
    }

    @Override
    protected void readInternal(ByteBuffer b) throws IOException {
      long start = getFilePointer();
      int n = b.remaining();
      if (start + n > length) {
        throw new EOFException("read past EOF: " + this);
      }
      recordRead(file, offset + start, offset + start + n);
      byte[] bytes = new byte[n];
      IndexInput clone = delegate.clone();
      clone.seek(offset + start);
      clone.readBytes(bytes, 0, n);
      b.put(bytes);
    }

    @Override
    protected void seekInternal(long pos) throws IOException {
      if (pos > length) {
        throw new EOFException("seek past EOF: " + this);
      }
    }

    @Override
    public IndexInput slice(String sliceDescription, long sliceOffset, long sliceLength) throws IOException {
      if (sliceOffset < 0 || sliceLength < 0 || sliceOffset + sliceLength > length) {
        throw new IllegalArgumentException("slice out of bounds: " + sliceDescription);
      }
      return new RecordingInput(
          getFullSliceDescription(sliceDescription), delegate, file, offset + sliceOffset, sliceLength, false);
    }

    @Override
    public long length() {
      return length;
    }

    @Override
    public void close() throws IOException {
      if (owner) {
        delegate.close();
      }
    }
  }
}
