import { resourcesDir } from '../../src/tokenizer/wordpiece';

export type Encoder = { encode(text: string): number[] };

/** transformers.js's own tokenizer, loaded from the shipped tokenizer.json: the reference the token counter is held to. */
export async function referenceTokenizer(): Promise<Encoder> {
  const { AutoTokenizer, env } = await import('@huggingface/transformers');
  env.localModelPath = `${resourcesDir()}/`;
  env.allowRemoteModels = false;
  return (await AutoTokenizer.from_pretrained('all-MiniLM-L6-v2')) as unknown as Encoder;
}
