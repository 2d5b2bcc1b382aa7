/** `schema`: the spec's JSON Schema, for editors. */
import { specJsonSchema } from "../../core/spec.ts";

export async function schemaCommand(): Promise<number> {
  process.stdout.write(`${JSON.stringify(specJsonSchema(), null, 2)}\n`);
  return 0;
}
