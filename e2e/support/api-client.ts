/**
 * A script-side client of the app's API that behaves like one browser: it sends the same Origin and keeps the
 * cookies the server sets (the WhatsApp verification cookie of send-code must go back with verify-code and
 * sign-up). Each account made through it gets a client of its own.
 */
export function apiClient(baseUrl: string) {
  const jar = new Map<string, string>()
  return {
    async post(path: string, body: unknown): Promise<Response> {
      const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
      const response = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: baseUrl, ...(cookie ? { cookie } : {}) },
        body: JSON.stringify(body),
      })
      if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`)
      for (const set of response.headers.getSetCookie()) {
        const [pair = ''] = set.split(';')
        const at = pair.indexOf('=')
        if (at > 0) jar.set(pair.slice(0, at), pair.slice(at + 1))
      }
      return response
    },
  }
}
