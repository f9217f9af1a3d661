import { invalidField } from '../../protocols/shared/invalid-field.ts';

/** A rerank request in the Cohere/Jina shape every rerank client sends (`/v1/rerank`, `/v2/rerank`). */
export interface RerankRequest {
  readonly model: string | undefined;
  readonly query: string;
  /** The documents' texts, in order (an object document `{ text }` gives its text). */
  readonly documents: readonly string[];
  readonly topN: number | undefined;
  readonly returnDocuments: boolean;
}

/** Documents one search unit covers (Cohere bills a search per query and up to 100 documents; Bedrock per query of up to 100). */
export const DOCUMENTS_PER_SEARCH = 100;

/** Reads and checks a rerank body; a 400 naming the field otherwise. */
export function readRerankRequest(json: Record<string, unknown>): RerankRequest {
  if (typeof json.query !== 'string' || json.query === '') throw invalidField('query', 'the search query is required, a non-empty string');
  if (!Array.isArray(json.documents) || json.documents.length === 0)
    throw invalidField('documents', 'a non-empty list of documents (strings or { text } objects) is required');
  const documents = json.documents.map((d, i) => {
    if (typeof d === 'string') return d;
    if (typeof d === 'object' && d !== null && typeof (d as { text?: unknown }).text === 'string') return (d as { text: string }).text;
    throw invalidField(`documents[${i}]`, 'a document is a string or an object with a text string');
  });
  const topN = json.top_n;
  if (topN !== undefined && topN !== null && (typeof topN !== 'number' || !Number.isInteger(topN) || topN < 1))
    throw invalidField('top_n', 'a whole number of at least 1');
  return {
    model: typeof json.model === 'string' ? json.model : undefined,
    query: json.query,
    documents,
    topN: typeof topN === 'number' ? topN : undefined,
    returnDocuments: json.return_documents === true,
  };
}

export function searchUnits(documentCount: number): number {
  return Math.max(1, Math.ceil(documentCount / DOCUMENTS_PER_SEARCH));
}
