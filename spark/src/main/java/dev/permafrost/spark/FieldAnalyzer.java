/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spark;

import java.io.IOException;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.DelegatingAnalyzerWrapper;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;

/**
 * How the query string's terms are analyzed: keyword fields (indexed as whole terms) take the text as one term,
 * every other field goes through {@link StandardAnalyzer}, as an index of analyzed text usually was built.
 */
final class FieldAnalyzer extends DelegatingAnalyzerWrapper {
  private final IndexFields fields;
  private final Analyzer keyword = new WholeInput();
  private final Analyzer text = new StandardAnalyzer();

  FieldAnalyzer(IndexFields fields) {
    super(PER_FIELD_REUSE_STRATEGY);
    this.fields = fields;
  }

  @Override
  protected Analyzer getWrappedAnalyzer(String fieldName) {
    IndexField f = fields.get(fieldName);
    return f != null && f.terms() ? keyword : text;
  }

  /** The whole input as one term. */
  private static final class WholeInput extends Analyzer {
    @Override
    protected TokenStreamComponents createComponents(String fieldName) {
      return new TokenStreamComponents(new WholeInputTokenizer());
    }
  }

  private static final class WholeInputTokenizer extends Tokenizer {
    private final CharTermAttribute term = addAttribute(CharTermAttribute.class);
    private final OffsetAttribute offset = addAttribute(OffsetAttribute.class);
    private boolean done;
    private int length;

    @Override
    public boolean incrementToken() throws IOException {
      if (done) {
        return false;
      }
      clearAttributes();
      done = true;
      char[] buffer = term.buffer();
      length = 0;
      for (int n; (n = input.read(buffer, length, buffer.length - length)) != -1; ) {
        length += n;
        if (length == buffer.length) {
          buffer = term.resizeBuffer(buffer.length * 2);
        }
      }
      term.setLength(length);
      offset.setOffset(correctOffset(0), correctOffset(length));
      return true;
    }

    @Override
    public void end() throws IOException {
      super.end();
      offset.setOffset(correctOffset(length), correctOffset(length));
    }

    @Override
    public void reset() throws IOException {
      super.reset();
      done = false;
      length = 0;
    }
  }
}
