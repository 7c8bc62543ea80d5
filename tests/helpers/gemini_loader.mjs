// Load Gemini CLI custom commands with Gemini CLI's own FileCommandLoader and run each
// command's prompt processors with the given arguments, as `/name ARGS` would.
//
// usage: node gemini_loader.mjs BUNDLE_DIR ARGS
// HOME must point at a folder whose .gemini/commands holds the .toml files.
// Prints one JSON object: {"commands": [{name, description, prompt}], "errors": [...]}.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [bundleDir, args] = process.argv.slice(2);

function findLoaderChunk(dir) {
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith(".js")) continue;
    const text = readFileSync(join(dir, file), "utf8");
    if (text.includes("var FileCommandLoader = class") && /export \{[^}]*\bFileCommandLoader,/s.test(text)) {
      return join(dir, file);
    }
  }
  throw new Error(`no bundle chunk in ${dir} exports FileCommandLoader`);
}

const errors = [];
const realError = console.error;
console.error = (...parts) => errors.push(parts.map(String).join(" "));
console.warn = console.error;

// The loader reports problems through Gemini CLI's event bus (coreEvents), which lives in
// the chunk the loader's chunk imports it from: listen there before loading anything.
async function coreEventsOf(chunkPath) {
  const text = readFileSync(chunkPath, "utf8");
  for (const match of text.matchAll(/import \{([^}]*)\} from "(\.\/[^"]+)"/g)) {
    if (/\bcoreEvents\b/.test(match[1])) {
      const mod = await import(pathToFileURL(join(bundleDir, match[2])).href);
      if (mod.coreEvents) return mod.coreEvents;
    }
  }
  throw new Error(`cannot find Gemini CLI's coreEvents next to ${chunkPath}`);
}

const chunkPath = findLoaderChunk(bundleDir);
const chunk = await import(pathToFileURL(chunkPath).href);
const events = await coreEventsOf(chunkPath);
events.on("user-feedback", (payload) =>
  errors.push(`${payload.severity}: ${payload.message} ${payload.error ? JSON.stringify(payload.error) : ""}`),
);
events.drainBacklogs?.();
const loader = new chunk.FileCommandLoader(null);
const commands = await loader.loadCommands(new AbortController().signal);
const out = [];
for (const command of commands) {
  const context = {
    invocation: { raw: `/${command.name} ${args}`, name: command.name, args },
    services: { agentContext: null },
    ui: { addItem: (item) => errors.push(JSON.stringify(item)) },
    session: { sessionShellAllowlist: new Set() },
  };
  let prompt = null;
  try {
    const result = await command.action(context, args);
    prompt = result.content.map((part) => part.text ?? "").join("");
  } catch (error) {
    errors.push(`${command.name}: ${error.message}`);
  }
  out.push({ name: command.name, description: command.description, prompt });
}
console.error = realError;
process.stdout.write(JSON.stringify({ commands: out, errors }) + "\n");
process.exit(0);
