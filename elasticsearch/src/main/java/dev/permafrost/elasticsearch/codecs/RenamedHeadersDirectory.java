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
import org.apache.lucene.store.FilterIndexInput;
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
  private static final class RenamedInput extends FilterIndexInput {
    private final Map<String, String> names;

    RenamedInput(IndexInput in, Map<String, String> names) {
      super(in.toString(), in);
      this.names = names;
    }

    @Override
    public String readString() throws IOException {
      String s = in.readString();
      return names.getOrDefault(s, s);
    }

    @Override
    public IndexInput clone() {
      return in.clone(); // a clone reads data, never a header: the file's own input, with nothing in between
    }

    @Override
    public void prefetch(long offset, long length) throws IOException {
      in.prefetch(offset, length);
    }
  }
}
