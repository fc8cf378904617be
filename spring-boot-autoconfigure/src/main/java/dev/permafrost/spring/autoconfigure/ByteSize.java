/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.spring.autoconfigure;

import dev.permafrost.blob.ByteSizes;
import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** A size such as {@code 512mb} ({@code b}, {@code kb}, {@code mb}, {@code gb}); null is valid (not set). */
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD, ElementType.RECORD_COMPONENT})
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = ByteSize.Validator.class)
public @interface ByteSize {
  /** Whether a share of the disk such as {@code 80%} is accepted too. */
  boolean share() default false;

  /** Whether zero is accepted. */
  boolean zero() default false;

  /** The message. */
  String message() default "must be a size such as 512mb (b, kb, mb, gb)";

  /** Validation groups. */
  Class<?>[] groups() default {};

  /** Payload. */
  Class<? extends Payload>[] payload() default {};

  /** Checks a {@link ByteSize}: parses it as Permafrost will, so start-up fails on the property, not later. */
  final class Validator implements ConstraintValidator<ByteSize, String> {
    private boolean share;
    private boolean zero;

    @Override
    public void initialize(ByteSize annotation) {
      share = annotation.share();
      zero = annotation.zero();
    }

    @Override
    public boolean isValid(String value, ConstraintValidatorContext context) {
      if (value == null) {
        return true;
      }
      String text = value.trim();
      String expected;
      if (share && text.endsWith("%")) {
        try {
          double percent = Double.parseDouble(text.substring(0, text.length() - 1));
          if (percent > 0 && percent <= 100) {
            return true;
          }
        } catch (NumberFormatException e) {
          // reported below
        }
        expected = "a share of the disk must be more than 0% and at most 100%";
      } else {
        try {
          long bytes = ByteSizes.parse(text);
          if (bytes > 0 || (zero && bytes == 0)) {
            return true;
          }
        } catch (IllegalArgumentException e) {
          // reported below
        }
        expected = "must be a size such as 512mb (b, kb, mb, gb)" + (zero ? ", or 0" : "")
            + (share ? ", or a share of the disk such as 80%" : "");
      }
      context.disableDefaultConstraintViolation();
      context.buildConstraintViolationWithTemplate(expected)
          .addConstraintViolation();
      return false;
    }
  }
}
