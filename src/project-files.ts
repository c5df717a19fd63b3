// Files the service reads at run time (the migrations, the console's sources), named from the
// project's root. This module sits directly in src/, and the production bundle directly in
// dist/, so one level up is the root from either: the same code runs from the sources (tests,
// tsx) and from the build (`npm start`).
const ROOT = new URL('../', import.meta.url);

/** A file or folder of the project, by its path from the project's root. */
export function projectFile(path: string): URL {
  return new URL(path, ROOT);
}
