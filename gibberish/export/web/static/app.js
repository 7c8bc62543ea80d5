// The compile page: one form, posted to /api/v1/preview (shown) and /api/v1/compile (saved).
"use strict";

const $ = (id) => document.getElementById(id);
const form = $("form");
let ready = false;

// The launch's token: from the link's fragment (never sent to any server) into this
// tab's sessionStorage (per origin, so no page on another port can read it), then out
// of the address bar. It goes only to this server, as a Bearer header, never a cookie.
const TOKEN_KEY = "gibberish-web-token";
const fromLink = new URLSearchParams(location.hash.slice(1)).get("token");
if (fromLink) {
  sessionStorage.setItem(TOKEN_KEY, fromLink);
  history.replaceState(null, "", location.pathname + location.search);
}
const token = sessionStorage.getItem(TOKEN_KEY) || "";

function api(path, options = {}) {
  return fetch(path, { ...options, headers: { Authorization: `Bearer ${token}` }, credentials: "omit" });
}

function formData() {
  const source = form.querySelector("input[name=source]:checked").value;
  const data = new FormData();
  data.set("target", form.querySelector("input[name=target]:checked").value);
  data.set("output_name", $("name").value.trim());
  data.set("agent", $("agent").value);
  data.set("skill_in_archive", $("pick").value.trim());
  if (source === "zip" && $("zip").files.length) data.set("skill_zip_file", $("zip").files[0]);
  if (source === "url") data.set("skill_url", $("url").value.trim());
  if (source === "installed") data.set("installed_skill_name", $("installed").value);
  return data;
}

function showError(error, hint) {
  $("error-text").textContent = error;
  $("error-hint").textContent = hint || "";
  $("error").hidden = false;
  $("result").hidden = true;
  $("download").disabled = true;
}

async function post(path) {
  $("busy").hidden = false;
  $("error").hidden = true;
  try {
    const response = await api(path, { method: "POST", body: formData() });
    if (!response.ok) {
      let body = {};
      try { body = await response.json(); } catch (_) { /* not JSON */ }
      const detail = body.error || (Array.isArray(body.detail) ? body.detail.map((d) => d.msg).join("; ") : "");
      showError(detail || `The server answered ${response.status}.`, body.hint);
      return null;
    }
    return response;
  } catch (error) {
    showError("The gibberish web server did not answer.", "Is `gibberish web` still running?");
    return null;
  } finally {
    $("busy").hidden = true;
  }
}

function render(preview) {
  const count = preview.files.length;
  $("result-title").textContent = `${preview.zip_name} — ${count} ${count === 1 ? "file" : "files"}`;
  const files = $("files");
  files.replaceChildren();
  for (const file of preview.files) {
    const box = document.createElement("div");
    box.className = "file";
    const title = document.createElement("h3");
    title.textContent = `${file.path} (${file.size} bytes)`;
    const pre = document.createElement("pre");
    pre.textContent = file.content;
    box.append(title, pre);
    files.append(box);
  }
  $("result").hidden = false;
  $("download").disabled = false;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const response = await post("/api/v1/preview");
  if (response) render(await response.json());
});

$("download").addEventListener("click", async () => {
  const response = await post("/api/v1/compile");
  if (!response) return;
  const blob = await response.blob();
  const match = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = match ? match[1] : "skill.zip";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
});

form.addEventListener("change", () => { $("download").disabled = true; });

async function listed(path) {
  const response = await api(path);
  const body = await response.json();
  if (!response.ok) throw body;
  return body;
}

async function init() {
  const [skills, targets] = await Promise.all([listed("/api/v1/skills"), listed("/api/v1/targets")]);
  for (const skill of skills) $("installed").append(new Option(skill.name, skill.name));
  for (const agent of targets.agents) $("agent").append(new Option(agent.title, agent.id));
  ready = true;
  document.body.dataset.ready = String(ready);
}

init().catch((body) => {
  if (body && body.error) showError(body.error, body.hint);
  else showError("Could not load the lists of skills and agents.", "Reload the page.");
});
