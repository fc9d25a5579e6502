(function () {
  "use strict";
  // Every string below came from a run record: it is only ever set with textContent (or as a
  // form control's value), never parsed as HTML.
  var data = JSON.parse(document.getElementById("granularity-data").textContent);
  var runs = data.runs;
  var shared = null;
  var FILTERS = data.filter_fields;
  var FOLD_LINES = 12;
  var FOLD_CHARS = 1200;

  // a long text that several runs repeat is stored once: "\u0000<index>" points into data.shared
  function text(value) {
    if (typeof value !== "string" || value.charAt(0) !== "\u0000") return value;
    if (shared === null) shared = JSON.parse(document.getElementById("granularity-shared").textContent);
    return shared[Number(value.slice(1))];
  }

  // a run with its heavy fields (transcript, diff, verifier output), read from its own block when first opened
  function fullRun(index) {
    var extra = JSON.parse(document.getElementById("run-details-" + index).textContent);
    return Object.assign({}, runs[index], extra);
  }

  function el(tag, className) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined) continue;
      node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function pre(text, className) {
    var node = el("pre", className);
    node.textContent = text;
    return node;
  }

  function section(title, body, open) {
    var node = el("details", "section", el("summary", null, title));
    if (open) node.open = true;
    if (typeof body === "function") {
      // rendered on first opening, so a closed section costs nothing
      node.addEventListener("toggle", function once() {
        if (!node.open) return;
        node.removeEventListener("toggle", once);
        node.appendChild(body());
      });
    } else {
      node.appendChild(body);
    }
    return node;
  }

  function tokensText(run) {
    return run.tokens + " (prompt " + run.prompt_tokens + ", completion " + run.completion_tokens + ")";
  }

  function providerText(run) {
    if (run.provider_prompt_tokens === null || run.provider_prompt_tokens === undefined) return null;
    var bill = "prompt " + run.provider_prompt_tokens + ", completion " + run.provider_completion_tokens;
    if (run.provider_cached_tokens !== null && run.provider_cached_tokens !== undefined) bill += ", cached " + run.provider_cached_tokens;
    return bill;
  }

  function facts(run) {
    var list = el("dl", "facts");
    function add(name, value) {
      if (value === null || value === undefined || value === "") return;
      list.appendChild(el("dt", null, name));
      list.appendChild(el("dd", null, String(value)));
    }
    add("task", run.task + " (" + run.family + ")");
    add("policy / fault", run.policy + " / " + run.fault);
    add("outcome", run.outcome);
    add("mode", run.mode);
    add("stop reason", run.stop_reason);
    add("failure class", run.failure_class);
    add("degraded to micro", run.degraded ? "yes" : "no");
    add("steps", run.steps + " (macro calls: " + run.macro_calls + ")");
    add("tokens (local, cl100k)", tokensText(run));
    add("tokens (provider)", providerText(run));
    add("tokens reported from", run.token_source);
    add("cost", run.cost);
    add("notes", (run.notes || []).join("; "));
    add("created", run.created.join(", "));
    add("modified", run.modified.join(", "));
    add("deleted", run.deleted.join(", "));
    add("contract violations", run.contract_violations.join("; "));
    add("error", run.error);
    return list;
  }

  function transitions(run) {
    if (!run.transitions.length) return el("p", "empty", "no transitions recorded");
    var list = el("ol", "transitions");
    run.transitions.forEach(function (t) { list.appendChild(el("li", null, el("code", null, t))); });
    return list;
  }

  function macroLog(run) {
    if (!run.macro_log.length) return el("p", "empty", "no macro calls");
    var keys = ["macro"];
    run.macro_log.forEach(function (entry) {
      Object.keys(entry).forEach(function (k) { if (keys.indexOf(k) < 0) keys.push(k); });
    });
    var head = el("tr");
    keys.forEach(function (k) { head.appendChild(el("th", null, k.replace(/_/g, " "))); });
    var body = el("tbody");
    run.macro_log.forEach(function (entry) {
      var row = el("tr");
      keys.forEach(function (k) {
        var value = entry[k];
        row.appendChild(el("td", null, value === null || value === undefined ? "-" : typeof value === "object" ? JSON.stringify(value) : String(value)));
      });
      body.appendChild(row);
    });
    return el("table", "macro-log", el("thead", null, head), body);
  }

  function diff(run) {
    var patch = text(run.diff);
    if (!patch) return el("p", "empty", "the workspace is unchanged");
    var node = el("pre", "diff");
    patch.split("\n").forEach(function (line) {
      var kind = /^(\+\+\+|---) /.test(line) ? "file" : line.charAt(0) === "+" ? "add" : line.charAt(0) === "-" ? "del" : line.indexOf("@@") === 0 ? "hunk" : null;
      node.appendChild(el("span", kind, line + "\n"));
    });
    return node;
  }

  function folded(label, body) {
    var lines = body.split("\n").length;
    if (lines <= FOLD_LINES && body.length <= FOLD_CHARS) return pre(body);
    var first = body.split("\n", 1)[0].slice(0, 120);
    return section(label + ": " + first + " \u2026 (" + lines + " lines, " + body.length + " characters)", function () { return pre(body); });
  }

  function argument(name, value) {
    value = text(value);
    var row = el("div", "arg", el("span", "name", name + " = "));
    if (typeof value === "string" && (value.indexOf("\n") >= 0 || value.length > 100)) {
      row.appendChild(folded("text", value));
    } else {
      row.appendChild(el("code", null, JSON.stringify(value)));
    }
    return row;
  }

  // A message's tool calls, in either record format: {tool_call: {name, arguments}} or the
  // chat-completions wire format {tool_calls: [{id, function: {name, arguments: "<JSON text>"}}]}.
  function toolCalls(msg) {
    if (msg.tool_call) return [{ name: msg.tool_call.name, id: "", args: msg.tool_call.arguments || {}, raw: null }];
    return (msg.tool_calls || []).map(function (call) {
      var fn = call.function || {};
      var raw = text(fn.arguments);
      var parsed = null;
      try { parsed = typeof raw === "string" ? JSON.parse(raw) : raw; } catch (err) { parsed = null; }
      var usable = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed);
      return { name: fn.name, id: call.id || "", args: usable ? parsed : null, raw: usable ? null : String(raw) };
    });
  }

  function message(msg, counter) {
    var node = el("div", "msg " + msg.role);
    var calls = msg.role === "assistant" ? toolCalls(msg) : [];
    if (calls.length) {
      node.appendChild(el("div", "role", "assistant calls"));
      if (msg.content) node.appendChild(pre(text(msg.content)));
      calls.forEach(function (call) {
        counter.steps += 1;
        node.appendChild(el("div", "call", el("span", "role", "step " + counter.steps + " \u00b7 "), call.name, call.id ? el("span", "call-id", " (" + call.id + ")") : null));
        if (call.args) Object.keys(call.args).forEach(function (k) { node.appendChild(argument(k, call.args[k])); });
        else node.appendChild(el("div", "arg", el("span", "name", "arguments (not a JSON object) = "), folded("text", call.raw)));
      });
      return node;
    }
    var label = msg.role === "tool" ? "observation" + (msg.tool_call_id ? " for " + msg.tool_call_id : "") : msg.role === "user" && counter.steps > 0 ? "harness note" : msg.role;
    node.appendChild(el("div", "role", label));
    var body = text(msg.content) || "";
    node.appendChild(msg.role === "tool" || msg.role === "system" ? folded(label, body) : pre(body));
    return node;
  }

  function transcript(run) {
    var node = el("div", "transcript");
    var counter = { steps: 0 };
    run.transcript.forEach(function (msg) { node.appendChild(message(msg, counter)); });
    return node;
  }

  function details(run) {
    var box = el("div", "run-details");
    box.appendChild(facts(run));
    box.appendChild(section("State-machine transitions (" + run.transitions.length + ")", transitions(run), true));
    box.appendChild(section("Macro log (" + run.macro_log.length + ")", macroLog(run), run.macro_log.length > 0));
    box.appendChild(section("Workspace diff against the initial files", diff(run), true));
    box.appendChild(section("Verifier output (last " + data.verifier_tail_lines + " lines)", pre(text(run.verifier_tail) || "(none)"), run.outcome !== "passed"));
    var transcriptBox = section("Transcript (" + run.transcript.length + " messages)", function () { return transcript(run); }, false);
    transcriptBox.classList.add("transcript-section");
    box.appendChild(transcriptBox);
    return box;
  }

  var tbody = document.getElementById("runs-body");
  var columns = data.run_columns;
  var rows = [];
  // At most PAGE rows are on the page at once (failures come first), and "show more" adds the next
  // PAGE: a table of thousands of rows is slow to lay out each time a run opens. A row is built the
  // first time it is shown, and kept (with its opened details) when filters hide it.
  var PAGE = 500;
  var limit = PAGE;

  function cell(run, column) {
    var value = run[column];
    var text = value === null || value === undefined || value === "" ? "-" : String(value);
    if (column === "provider_tokens") text = run.provider_prompt_tokens === null || run.provider_prompt_tokens === undefined ? "-" : String(run.provider_prompt_tokens + run.provider_completion_tokens);
    var className = column === "outcome" ? "outcome " + run.outcome : column === "steps" || column === "tokens" || column === "provider_tokens" ? "num" : null;
    return el("td", className, text);
  }

  function toggle(row) {
    var detailRow = row.detailRow;
    if (!detailRow) {
      var td = el("td");
      td.colSpan = columns.length;
      td.appendChild(details(fullRun(row.runIndex)));
      detailRow = el("tr", "details", td);
      row.after(detailRow);
      row.detailRow = detailRow;
    } else {
      detailRow.hidden = !detailRow.hidden;
    }
    row.classList.toggle("open", !detailRow.hidden);
    row.setAttribute("aria-expanded", String(!detailRow.hidden));
  }

  function rowFor(index) {
    if (rows[index]) return rows[index];
    var run = runs[index];
    var row = el("tr", "run");
    row.runIndex = index;
    row.tabIndex = 0;
    row.dataset.runId = run.id;
    row.setAttribute("aria-expanded", "false");
    columns.forEach(function (column) { row.appendChild(cell(run, column)); });
    rows[index] = row;
    return row;
  }

  tbody.addEventListener("click", function (event) {
    if (event.target.closest("button.more")) { limit += PAGE; applyFilters(); return; }
    var row = event.target.closest("tr.run");
    if (row) toggle(row);
  });
  tbody.addEventListener("keydown", function (event) {
    var row = event.target.closest("tr.run");
    if (row && (event.key === "Enter" || event.key === " ")) { event.preventDefault(); toggle(row); }
  });

  var form = document.getElementById("filters");
  FILTERS.forEach(function (name) {
    var select = document.getElementById("filter-" + name);
    var counts = {};
    runs.forEach(function (run) { counts[run[name]] = (counts[run[name]] || 0) + 1; });
    Object.keys(counts).sort().forEach(function (value) {
      var option = el("option", null, value + " (" + counts[value] + ")");
      option.value = value;
      select.appendChild(option);
    });
  });

  function applyFilters() {
    var wanted = {};
    FILTERS.forEach(function (name) { wanted[name] = document.getElementById("filter-" + name).value; });
    var needle = document.getElementById("filter-task").value.trim().toLowerCase();
    var matching = [];
    runs.forEach(function (run, index) {
      if (FILTERS.every(function (name) { return !wanted[name] || run[name] === wanted[name]; }) &&
        (!needle || run.task.toLowerCase().indexOf(needle) >= 0)) matching.push(index);
    });
    var fragment = document.createDocumentFragment();
    matching.slice(0, limit).forEach(function (index) {
      var row = rowFor(index);
      fragment.appendChild(row);
      if (row.detailRow) fragment.appendChild(row.detailRow);
    });
    if (matching.length > limit) {
      var more = el("td", "more", el("button", "more", "show " + Math.min(PAGE, matching.length - limit) + " more"));
      more.colSpan = columns.length;
      fragment.appendChild(el("tr", "more", more));
    }
    tbody.replaceChildren(fragment);
    var listed = Math.min(limit, matching.length);
    document.getElementById("shown").textContent = "(showing " + matching.length + " of " + runs.length + ")" +
      (listed < matching.length ? ", the first " + listed + " listed" : "");
  }
  form.addEventListener("input", function () { limit = PAGE; applyFilters(); });
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  applyFilters();

  // #run=<task|policy|fault> opens that run (links from pytest-html's report land here)
  var match = /^#run=(.*)$/.exec(window.location.hash);
  if (match) {
    var wantedId = decodeURIComponent(match[1]);
    var index = runs.findIndex(function (run) { return run.id === wantedId; });
    if (index >= 0) {
      if (!rows[index] || !rows[index].isConnected) { document.getElementById("filter-task").value = runs[index].task; applyFilters(); }
      toggle(rows[index]);
      rows[index].scrollIntoView();
    }
  }
})();
