/** Types for the parts of oxc-parser that `oxc-raw.ts` reads (the package types only its wrapper). */
declare module 'oxc-parser/src-js/generated/constants' {
  export const BLOCK_SIZE: number;
  export const BLOCK_ALIGN: number;
  export const BUFFER_SIZE: number;
  export const ACTIVE_SIZE: number;
  export const IS_TS_FLAG_POS: number;
}
