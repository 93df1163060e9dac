// multipart/form-data bodies as a browser or client library sends them (the platform's FormData picks the boundary).
export type Part = string | { data: Buffer; filename: string; type: string };

export async function multipart(parts: Record<string, Part>): Promise<{ data: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [name, part] of Object.entries(parts)) {
    if (typeof part === 'string') form.append(name, part);
    else form.append(name, new Blob([part.data], { type: part.type }), part.filename);
  }
  const encoded = new Response(form);
  return { data: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type') ?? '' };
}
