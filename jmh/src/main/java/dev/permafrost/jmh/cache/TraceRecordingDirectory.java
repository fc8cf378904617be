/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.cache;

import java.io.IOException;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;

/**
 * A directory that records which cache regions each read touches, into the {@link AccessTrace} set with
 * {@link #record(AccessTrace)} (none: not recording). A read at file offset {@code o} touches region
 * {@code o / regionSize}; files are named {@code prefix + name} so that traces over several indices keep them
 * apart.
 *
 * <p>Each input (and each clone or slice) collapses consecutive accesses to the region it touched last into one:
 * a cache is consulted once per region an input moves into, not per byte, which is also how a real region cache
 * with a per-input current-region pointer behaves. Prefetch hints are not recorded.
 */
public final class TraceRecordingDirectory extends FilterDirectory {
  private final String prefix;
  private volatile AccessTrace trace;

  /** Records reads of {@code in}'s files, named {@code prefix + fileName} in the trace. */
  public TraceRecordingDirectory(Directory in, String prefix) {
    super(in);
    this.prefix = prefix;
  }

  /** Starts recording into {@code trace}, or stops with {@code null}. Inputs already open follow the switch. */
  public void record(AccessTrace trace) {
    this.trace = trace;
  }

  @Override
  public IndexInput openInput(String name, IOContext context) throws IOException {
    return new RecordingInput("trace(" + name + ")", in.openInput(name, context), prefix + name, 0);
  }

  /** An input that notes the regions its reads touch. */
  private final class RecordingInput extends IndexInput {
    private IndexInput in;
    private final String file;
    private final long base;
    private AccessTrace lastTrace;
    private long lastRegion = -1;
    private long keyBase;

    RecordingInput(String description, IndexInput in, String file, long base) {
      super(description);
      this.in = in;
      this.file = file;
      this.base = base;
    }

    private void note(long position, long length) {
      AccessTrace t = trace;
      if (t == null || length <= 0) {
        return;
      }
      if (t != lastTrace) {
        lastTrace = t;
        lastRegion = -1;
        keyBase = t.key(file, 0);
      }
      long size = t.regionSize();
      long first = (base + position) / size;
      long last = (base + position + length - 1) / size;
      for (long r = first; r <= last; r++) {
        if (r != lastRegion) {
          t.add(keyBase + r);
          lastRegion = r;
        }
      }
    }

    @Override
    public byte readByte() throws IOException {
      note(in.getFilePointer(), 1);
      return in.readByte();
    }

    @Override
    public void readBytes(byte[] b, int offset, int len) throws IOException {
      note(in.getFilePointer(), len);
      in.readBytes(b, offset, len);
    }

    @Override
    public void close() throws IOException {
      in.close();
    }

    @Override
    public long getFilePointer() {
      return in.getFilePointer();
    }

    @Override
    public void seek(long pos) throws IOException {
      in.seek(pos);
    }

    @Override
    public long length() {
      return in.length();
    }

    @Override
    public IndexInput slice(String sliceDescription, long offset, long length) throws IOException {
      return new RecordingInput(sliceDescription, in.slice(sliceDescription, offset, length), file, base + offset);
    }

    @Override
    public void prefetch(long offset, long length) throws IOException {
      in.prefetch(offset, length);
    }

    @Override
    public RecordingInput clone() {
      RecordingInput clone = (RecordingInput) super.clone();
      clone.in = in.clone();
      clone.lastTrace = null;
      clone.lastRegion = -1;
      return clone;
    }
  }
}
