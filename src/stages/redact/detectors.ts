// The built-in detectors: a pattern each, and for cards and IBANs the checksum a match must pass.
// Every pattern is global (the scanner walks its matches) and bounded in length, so a streamed reply
// needs to hold back only MAX_MATCH characters to see a match across chunk boundaries.
import { ibanValid, luhnValid } from './checks.ts';

export interface Rule {
  /** The detector's or the operator's pattern's name: the mask, the refusal and the metric label say it. */
  name: string;
  regex: RegExp;
  /** A match must also pass this (a checksum); absent = every match counts. */
  valid?: (match: string) => boolean;
}

export const DETECTOR_NAMES = ['email', 'phone', 'card', 'iban', 'secret_key'] as const;
export type DetectorName = (typeof DETECTOR_NAMES)[number];

/** The longest text a built-in detector matches; a streamed reply holds back at most this much. */
export const MAX_MATCH = 256;

const stripSeparators = (s: string): string => s.replace(/[\s-]/g, '');

export const DETECTORS: Readonly<Record<DetectorName, Rule>> = {
  // Checked first: a key is masked whole, before any shorter detector sees a piece of it.
  secret_key: {
    name: 'secret_key',
    // OpenAI (`sk-…`, `sk-proj-…`), Anthropic (`sk-ant-…`) and AWS access key ids (`AKIA…`, `ASIA…`).
    regex: /(?<![A-Za-z0-9_-])(?:sk-[A-Za-z0-9_-]{20,200}|(?:AKIA|ASIA)[A-Z0-9]{16})(?![A-Za-z0-9_-])/g,
  },
  email: {
    name: 'email',
    regex:
      /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}(?![A-Za-z0-9-])/g,
  },
  card: {
    name: 'card',
    // 13 to 19 digits, in groups separated by single spaces or hyphens; the Luhn check decides.
    regex: /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d])/g,
    valid: (match) => {
      const digits = stripSeparators(match);
      return digits.length >= 13 && digits.length <= 19 && luhnValid(digits);
    },
  },
  iban: {
    name: 'iban',
    // A country code, two check digits and up to 30 letters or digits, in groups of four or run together.
    regex: /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])/g,
    valid: (match) => ibanValid(match.replace(/ /g, '')),
  },
  phone: {
    name: 'phone',
    // International (+CC …) or North American (555-123-4567, (555) 123 4567) numbers, with separators.
    regex:
      /(?<![\w+])(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,4}|\(\d{3}\)[ .-]?\d{3}[ .-]\d{4}|\d{3}[.-]\d{3}[.-]\d{4})(?![\w])/g,
    valid: (match) => {
      const digits = match.replace(/\D/g, '').length;
      return digits >= 8 && digits <= 15;
    },
  },
};
