/** The name used when a folder's name has no letters or digits at all. */
export const fallbackSpecName = "loop";

/**
 * A spec `name` from a folder name: lowercased, every run of characters other than a-z and 0-9
 * turned into one "-", with no leading or trailing "-". Letters with accents lose them
 * ("Café App" → "cafe-app"); a name left empty becomes "loop".
 */
export function specNameFromFolder(folderName: string): string {
  const name = folderName
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return name === "" ? fallbackSpecName : name;
}
