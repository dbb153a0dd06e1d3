// The REST API, same origin: the page is served at <root>/ui/, the API at <root>/v1/.
// A 401 asks for the token (kept in sessionStorage) and retries; every other error throws
// an ApiError with the server's {"error": message}, which the caller shows in a toast.
import { promptDialog } from "./dom.js";

const TOKEN_KEY = "mags.token";

export class ApiError extends Error {
  constructor(status, message, path) {
    super(message);
    this.status = status;
    this.path = path;
  }
}

function url(path) {
  return new URL(`../v1/${path.replace(/^\//, "")}`, document.baseURI).toString();
}

let asking = null;

async function askToken(again) {
  if (!asking) {
    asking = promptDialog(
      "Token required",
      again
        ? "That token was refused. Enter the API token (MAGS_API_TOKEN):"
        : "This MAGS API needs a bearer token (MAGS_API_TOKEN). Enter it:",
      "Use token",
    ).finally(() => {
      asking = null;
    });
  }
  const value = await asking;
  if (value === null || !value.trim()) return false;
  sessionStorage.setItem(TOKEN_KEY, value.trim());
  return true;
}

export async function api(method, path, body) {
  for (let attempt = 0; ; attempt++) {
    const headers = { Accept: "application/json" };
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response;
    try {
      response = await fetch(url(path), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (e) {
      throw new ApiError(0, `cannot reach the MAGS API (${e.message})`, path);
    }
    if (response.status === 401 && attempt < 3) {
      if (await askToken(Boolean(token))) continue;
      throw new ApiError(401, "a bearer token is required", path);
    }
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!response.ok) {
      const message =
        (data && typeof data.error === "string" && data.error) ||
        (data && typeof data.detail === "string" && data.detail) ||
        text ||
        response.statusText;
      throw new ApiError(response.status, `${method} ${path}: ${response.status} ${message}`, path);
    }
    return data;
  }
}

export const ns = {
  path: (name, rest = "") => `namespaces/${encodeURIComponent(name)}${rest}`,
};
