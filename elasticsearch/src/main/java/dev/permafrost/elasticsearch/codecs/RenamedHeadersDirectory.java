/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.codecs;

import java.io.IOException;
import java.util.Map;
import org.apache.lucene.store.BufferedChecksumIndexInput;
import org.apache.lucene.store.ChecksumIndexInput;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;

/**
 * A view of a segment's directory in which the codec names of files' headers read as other names: a format whose
 * layout is another's under its own header names is read by that other format's reader. Only strings read with
 * {@code readString} equal to a key are renamed (codec headers are the only strings of a postings file); every byte,
 * and so every checksum, is the file's own.
 */
final class RenamedHeadersDirectory extends FilterDirectory {
  private final Map<String, String> names;

  RenamedHeadersDirectory(Directory in, Map<String, String> names) {
    super(in);
    this.names = names;
  }

  @Override
  public IndexInput openInput(String name, IOContext context) throws IOException {
    return new RenamedInput(in.openInput(name, context), names);
  }

  @Override
  public ChecksumIndexInput openChecksumInput(String name) throws IOException {
    IndexInput raw = in.openInput(name, IOContext.READONCE);
    return new BufferedChecksumIndexInput(raw) {
      @Override
      public String readString() throws IOException {
        String s = super.readString();
        return names.getOrDefault(s, s);
      }
    };
  }

  /** An input that renames the header strings it reads; its clones and slices are the file's own inputs. */
  private static final class RenamedInput extends IndexInput {
    private final IndexInput in;
    private final Map<String, String> names;

    RenamedInput(IndexInput in, Map<String, String> names) {
      super(in.toString());
      this.in = in;
      this.names = names;
    }

    @Override
    public String readString() throws IOException {
      String s = in.readString();
      return names.getOrDefault(s, s);
    }

    @Override
    public byte readByte() throws IOException {
      return in.readByte();
    }

    @Override
    public void readBytes(byte[] b, int offset, int len) throws IOException {
      in.readBytes(b, offset, len);
    }

    @Override
    public short readShort() throws IOException {
      return in.readShort();
    }

    @Override
    public int readInt() throws IOException {
      return in.readInt();
    }

    @Override
    public long readLong() throws IOException {
      return in.readLong();
    }

    @Override
    public int readVInt() throws IOException {
      return in.readVInt();
    }

    @Override
    public long readVLong() throws IOException {
      return in.readVLong();
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
      return in.slice(sliceDescription, offset, length);
    }

    @Override
    public IndexInput clone() {
      return in.clone();
    }

    @Override
    public void prefetch(long offset, long length) throws IOException {
      in.prefetch(offset, length);
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
