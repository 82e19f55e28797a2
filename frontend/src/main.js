// croupier in the browser: the lobby, a table, the player's history and recall, and the
// dealer console. Routes live in the URL's hash so a reload keeps the page.
import { html, render } from "htm/preact";
import { signal } from "@preact/signals";
import { api, whenExpired } from "./api.js";
import { begin, end, farewell, hearOtherTabs, plays, sayFarewell, tellOtherTabs, user } from "./session.js";
import { SessionBar, Reminder, TimeLimitReached } from "./components/SessionBar.js";
import { Lobby } from "./components/Lobby.js";
import { Login } from "./components/Login.js";
import { TablePage } from "./components/Table.js";
import { History, Recall } from "./components/History.js";
import { LimitsPage } from "./components/Limits.js";
import { AdminPage } from "./components/Admin.js";
import "./styles.css";

const route = signal(location.hash);
window.addEventListener("hashchange", () => {
  route.value = location.hash;
  document.getElementById("main")?.focus({ preventScroll: true });
});

whenExpired(() => {
  end();
  location.hash = "#/login";
});

const NEEDS_LOGIN = ["history", "round", "dealer", "limits", "admin"];

async function logout() {
  try {
    await api("/api/sessions/current", { method: "DELETE" });
  } catch {
    // The session is gone either way.
  }
  end();
  tellOtherTabs({ type: "logout" });
  location.hash = "#/";
}

// A logout, a break or a self-exclusion in another tab: this one is logged out too.
hearOtherTabs((message) => {
  if (!user.value) return;
  end();
  if (message?.type === "stopped") {
    sayFarewell(message.text);
    location.hash = "#/stopped";
  } else if (NEEDS_LOGIN.includes(route.value.split("/")[1])) {
    location.hash = "#/";
  }
});

/** Where a player lands after a break or a self-exclusion: what he chose, until when. */
function Farewell() {
  return html`<section class="farewell" aria-labelledby="farewell-title">
    <h1 id="farewell-title">You have stopped playing</h1>
    <p id="farewell-text">${farewell.value ?? "You are logged out."}</p>
    <p><a href="#/">Back to the lobby</a></p>
  </section>`;
}

function Page() {
  const [, page, id] = route.value.split("/");
  const who = user.value;
  const needsLogin = NEEDS_LOGIN.includes(page);
  if (page === "login" || (needsLogin && !who)) return html`<${Login} next=${page === "login" ? "#/" : route.value} />`;
  switch (page) {
    case "stopped": return html`<${Farewell} />`;
    // A login or logout (here or in another tab) joins the table again as who he is now.
    case "table": return html`<${TablePage} key=${`${id}|${who?.name ?? ""}`} id=${decodeURIComponent(id)} />`;
    case "dealer":
      if (who.role !== "dealer" && who.role !== "admin") {
        return html`<p class="error" role="alert">The dealer console is for dealer accounts only.</p>`;
      }
      return html`<${TablePage} key=${`dealer-${id}`} id=${decodeURIComponent(id)} dealer=${true} />`;
    case "history": return html`<${History} />`;
    case "admin":
      if (who.role !== "admin") return html`<p class="error" role="alert">The back office is for admin accounts only.</p>`;
      return html`<${AdminPage} />`;
    case "limits": return plays.value ? html`<${LimitsPage} />` : html`<p class="error" role="alert">Limits are for players' accounts.</p>`;
    case "round": return html`<${Recall} key=${id} id=${decodeURIComponent(id)} />`;
    default: return html`<${Lobby} />`;
  }
}

/** The page's first stop for the keyboard: past the session bar to the page itself
 * (WCAG 2.2 2.4.1). A link, but the hash holds the route, so it moves the focus itself. */
function skipToMain(event) {
  event.preventDefault();
  document.getElementById("main")?.focus();
}

function App() {
  return html`<a class="skip-link" href="#main" onClick=${skipToMain}>Skip to main content</a>
    <${SessionBar} onLogout=${logout} />
    <main id="main" tabindex="-1"><${Page} /></main>
    <${Reminder} onLogout=${logout} />
    <${TimeLimitReached} />`;
}

// A reload or a new tab keeps the login (the server's cookie): ask the server who we are,
// what we hold and where the session of play stands, then show the page.
api("/api/me")
  .then(begin)
  .catch(() => end())
  .finally(() => render(html`<${App} />`, document.getElementById("root")));
