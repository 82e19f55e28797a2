import { html } from "htm/preact";
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { begin } from "../session.js";

export function Login({ next = "#/" }) {
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  async function submit(event, register) {
    event.preventDefault();
    setBusy(true);
    setError("");
    try {
      const credentials = { name, password };
      if (register) await api("/api/accounts", { method: "POST", body: credentials });
      await api("/api/sessions", { method: "POST", body: credentials }); // sets the cookie
      // Leave the login page as soon as we know who we are, so that a page the player
      // opens while the session of play loads is not taken from under him.
      const loaded = begin(await api("/api/me"));
      location.hash = next;
      await loaded;
    } catch (problem) {
      setError(problem.message);
    } finally {
      setBusy(false);
    }
  }
  return html`<form class="login" onSubmit=${(e) => submit(e, false)}>
    <h1>Take a seat</h1>
    <label for="name">Name</label>
    <input id="name" autocomplete="username" required minlength="3" value=${name} onInput=${(e) => setName(e.currentTarget.value)} autofocus />
    <label for="password">Password</label>
    <input id="password" type="password" autocomplete="current-password" required value=${password} onInput=${(e) => setPassword(e.currentTarget.value)} />
    <div class="row">
      <button type="submit" class="primary" disabled=${busy}>Log in</button>
      <button type="button" disabled=${busy} onClick=${(e) => submit(e, true)}>Sign up</button>
    </div>
    <p class="error" role="alert">${error}</p>
    <p class="fine">Names: 3 to 40 letters, digits, _ . -; passwords: 8 characters or more.</p>
  </form>`;
}
