// The server's HTTP API (its description: /openapi.json). Every error the server sends
// has one shape, {code, message}; an ApiError carries both.
//
// The login is the server's session cookie (HttpOnly, SameSite=Strict): the browser
// sends it with every request and table socket, in every tab, and no script can read it.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let signedIn = false;
let onExpired = () => {};

/** Whether the page believes it is logged in (a 401 then means the session ended). */
export function setSignedIn(value) {
  signedIn = value;
}
/** Called when the server no longer knows the session. */
export function whenExpired(callback) {
  onExpired = callback;
}

export async function api(path, { method = "GET", body } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, { method, headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, "offline", "The server cannot be reached; check your connection.");
  }
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (response.status === 401 && signedIn) {
    signedIn = false;
    onExpired();
    throw new ApiError(401, "session_expired", "Your session has ended: log in again.");
  }
  if (!response.ok) {
    const message = data?.message ?? data?.detail?.[0]?.msg ?? response.statusText;
    throw new ApiError(response.status, data?.error ?? data?.code ?? "error", message);
  }
  return data;
}
