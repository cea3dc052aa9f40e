/** The part of tar-fs (no types of its own) that unpacks the bundled Chromium's libraries. */
declare module "tar-fs" {
  import type { Writable } from "node:stream";
  export function extract(directory: string): Writable;
}
