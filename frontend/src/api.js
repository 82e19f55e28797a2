// The server's HTTP API (its description: /openapi.json). Every error the server sends
// has one shape, {code, message}; an ApiError carries both.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let token = sessionStorage.getItem("croupier.token");
let onExpired = () => {};

export const getToken = () => token;
export function setToken(value) {
  token = value;
  if (value) sessionStorage.setItem("croupier.token", value);
  else sessionStorage.removeItem("croupier.token");
}
/** Called when the server no longer knows the session. */
export function whenExpired(callback) {
  onExpired = callback;
}

export async function api(path, { method = "GET", body } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, "offline", "The server cannot be reached; check your connection.");
  }
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (response.status === 401 && token) {
    setToken(null);
    onExpired();
    throw new ApiError(401, "session_expired", "Your session has ended: log in again.");
  }
  if (!response.ok) {
    const message = data?.message ?? data?.detail?.[0]?.msg ?? response.statusText;
    throw new ApiError(response.status, data?.code ?? "error", message);
  }
  return data;
}
