// testsuite score report: the drill-down over every output of one language pair.
// Data: <script type="application/json" class="report-data">, the compact form of
// drilldown.drilldown_data (see its docstring); `expand` turns each item's letters into
// one output string index and one verdict index per system (-1: none).
// The filter state is a set of names (TS.readState / TS.stateHash), so links never depend
// on the order of anything in the data.
(function () {
  "use strict";
  var TS = window.TS;
  var PAGE = 20;

  function expand(data) {
    var letters = {};
    for (var i = 0; i < data.alphabet.length; i++) letters[data.alphabet.charAt(i)] = i;
    function decode(letter) {
      if (letter === "-") return -1;
      return letter in letters ? letters[letter] : letter.charCodeAt(0) - 256;
    }
    data.items = data.items.map(function (raw) {
      var outputs = [], verdicts = [], local = [];
      for (var s = 0; s < data.systems.length; s++) {
        var which = decode(raw[5].charAt(s));
        local.push(which);
        outputs.push(which < 0 ? -1 : raw[4][which]);
        verdicts.push(decode(raw[6].charAt(s)));
      }
      return { id: raw[0], phenomenon: raw[1], category: data.phenomena[raw[1]][1], source: raw[2],
        description: raw[3], outputs: outputs, verdicts: verdicts, local: local, entered: raw[7] === 1,
        rule: raw[8] && raw[8].length === 2 ? raw[8].concat([[], [], 0]) : raw[8], spans: raw[9] || [],
        why: raw[10] === undefined ? -1 : raw[10] };
    });
    return data;
  }

  function Drilldown(section) {
    var self = this;
    var data = expand(JSON.parse(section.querySelector("script.report-data").textContent));
    // The scores' statistics (the tables' cells, the contrast's p-values), parsed once here.
    var stats = JSON.parse(section.querySelector("script.report-stats").textContent);
    self.stats = stats;
    var target = section.getAttribute("data-target");
    var root = section.querySelector(".drilldown");
    var form = root.querySelector("form.filters");
    var controls = {};
    ["category", "phenomenon", "system", "outcome", "scored", "q", "a", "b", "dir", "group"].forEach(function (name) {
      controls[name] = form.elements.namedItem(name);
    });
    var list = root.querySelector(".items");
    var status = root.querySelector(".status");
    var more = root.querySelector("button.more");
    var countsPanel = root.querySelector(".contrast-counts");
    var MISSING = data.outcomes.indexOf("missing");
    var lower = null; // lower-cased strings, made on the first search
    var matches = { items: [], counts: [] };
    var shown = 0;
    var item = ""; // the item view: one item, every system
    var average = ""; // opened from a macro-average row: its label
    var index = function (names) {
      var map = {};
      names.forEach(function (name, i) { map[name] = i; });
      return map;
    };
    var categoryIndex = index(data.categories);
    var systemIndex = index(data.systems);
    var outcomeIndex = index(data.outcomes);
    var itemIndex = {};
    data.items.forEach(function (entry, i) { itemIndex[entry.id] = i; });
    self.data = data;
    self.status = status;
    status.tabIndex = -1; // focus moves here when a view is opened from a table

    // Which items a view lists (the "Items" filter): by default the items behind the
    // tables' numbers (those that entered the scores: scoring's definition, carried by each
    // item's `entered`), or the located items left out of the scores, or all located items.
    // "yes" is the older name of the default.
    function itemSet() {
      var value = controls.scored.value;
      return value === "no" || value === "all" ? value : "";
    }
    function inSet(entry, set) {
      return set === "all" || entry.entered === (set !== "no");
    }

    // Counts per category and phenomenon for the option labels: the items the list would
    // show when the option is chosen (with the "Items" filter as it is).
    var perPhenomenon = data.phenomena.map(function () { return 0; });
    var perCategory = data.categories.map(function () { return 0; });
    function countOptions() {
      var set = itemSet();
      perPhenomenon = data.phenomena.map(function () { return 0; });
      perCategory = data.categories.map(function () { return 0; });
      data.items.forEach(function (entry) {
        if (!inSet(entry, set)) return;
        perPhenomenon[entry.phenomenon] += 1;
        perCategory[entry.category] += 1;
      });
      Array.prototype.forEach.call(controls.category.options, function (option) {
        if (option.value !== "") option.textContent = data.categories[Number(option.value)] + " (" + perCategory[Number(option.value)] + ")";
      });
    }
    TS.option(controls.category, "", "all categories (" + data.categories.length + ")");
    data.categories.forEach(function (name, i) { TS.option(controls.category, String(i), name); });
    countOptions();
    [controls.system, controls.a, controls.b].forEach(function (select, k) {
      TS.option(select, "", k ? "–" : "all systems (" + data.systems.length + ")");
      data.systems.forEach(function (name, i) { TS.option(select, String(i), name); });
    });
    TS.option(controls.outcome, "", "any outcome");
    data.outcomes.forEach(function (name, i) { TS.option(controls.outcome, String(i), name); });

    function fillPhenomena() {
      var keep = controls.phenomenon.value;
      var category = controls.category.value;
      controls.phenomenon.textContent = "";
      TS.option(controls.phenomenon, "", "all phenomena");
      var kept = false;
      data.phenomena.forEach(function (p, i) {
        if (category === "" || String(p[1]) === category) {
          TS.option(controls.phenomenon, String(i), p[0] + " (" + perPhenomenon[i] + ")");
          kept = kept || String(i) === keep;
        }
      });
      controls.phenomenon.value = kept ? keep : "";
    }

    function outcomeOf(verdict) { return verdict < 0 ? MISSING : data.verdicts[verdict][0]; }
    function reasonOf(verdict) { return verdict < 0 ? "no output for this item" : data.strings[data.verdicts[verdict][1]]; }
    function selected(select) { return select.value === "" ? -1 : Number(select.value); }
    function contains(i, query) { return i >= 0 && lower[i].indexOf(query) >= 0; }

    function contrast() {
      var a = selected(controls.a), b = selected(controls.b);
      return a >= 0 && b >= 0 && a !== b ? { a: a, b: b, dir: controls.dir.value } : null;
    }

    // Which way an item splits A and B: "ab" (A passes, B fails), "ba", or "".
    function split(entry, pair) {
      var a = outcomeOf(entry.verdicts[pair.a]), b = outcomeOf(entry.verdicts[pair.b]);
      if (a === 0 && b === 1) return "ab";
      if (a === 1 && b === 0) return "ba";
      return "";
    }

    // Items matching the filters, each with the systems (columns) to show.
    function filter() {
      var found = [];
      var counts = data.outcomes.map(function () { return 0; });
      var scored = { yes: 0, no: 0 };
      var other = 0; // items of the same filters in the other set (scored / left out)
      var all = data.systems.map(function (_, s) { return s; });
      if (item) {
        var one = data.items[itemIndex[item]];
        if (one) found.push([one, all]);
      } else {
        var category = selected(controls.category), phenomenon = selected(controls.phenomenon);
        var system = selected(controls.system), outcome = selected(controls.outcome);
        var set = itemSet();
        var pair = contrast();
        var query = controls.q.value.trim().toLowerCase();
        if (query && lower === null) lower = data.strings.map(function (s) { return s.toLowerCase(); });
        data.items.forEach(function (entry) {
          if (phenomenon >= 0 && entry.phenomenon !== phenomenon) return;
          if (category >= 0 && entry.category !== category) return;
          var columns;
          if (pair) {
            var way = split(entry, pair);
            if (!way || (pair.dir !== "both" && way !== pair.dir)) return;
            columns = [pair.a, pair.b];
          } else {
            columns = [];
            for (var s = 0; s < data.systems.length; s++) {
              if (system >= 0 && s !== system) continue;
              if (outcome >= 0 && outcomeOf(entry.verdicts[s]) !== outcome) continue;
              columns.push(s);
            }
            if (!columns.length) return;
          }
          if (query && !(entry.id.toLowerCase().indexOf(query) >= 0 || contains(entry.source, query) ||
              contains(entry.description, query) ||
              columns.some(function (c) { return contains(entry.outputs[c], query); }))) return;
          if (inSet(entry, set)) found.push([entry, columns]);
          else if (set !== "all") other += 1;
        });
      }
      found.forEach(function (match) {
        scored[match[0].entered ? "yes" : "no"] += 1;
        match[1].forEach(function (c) { counts[outcomeOf(match[0].verdicts[c])] += 1; });
      });
      return { items: found, counts: counts, scored: scored, other: other };
    }

    // The output with the rule's matches marked (negative over positive where they overlap).
    function highlighted(cell, text, spans) {
      if (!spans || !spans.length) { cell.textContent = text; return; }
      var cuts = [0, text.length];
      for (var i = 0; i < spans.length; i += 3) cuts.push(spans[i], spans[i + 1]);
      cuts = cuts.filter(function (v, k, all) { return all.indexOf(v) === k; }).sort(function (x, y) { return x - y; });
      for (var c = 0; c + 1 < cuts.length; c++) {
        var start = cuts[c], end = cuts[c + 1], positive = false, negative = false, token = false;
        for (var j = 0; j < spans.length; j += 3) {
          if (spans[j] <= start && spans[j + 1] >= end) {
            if (spans[j + 2] & 1) positive = true; else negative = true;
            if (spans[j + 2] & 2) token = true;
          }
        }
        var piece = text.slice(start, end);
        if (!positive && !negative) { cell.appendChild(document.createTextNode(piece)); continue; }
        var mark = TS.element("mark", (negative ? "neg" : "pos") + (token ? " token" : ""), piece);
        mark.title = (negative ? "negative " : "positive ") + (token ? "token" : "regex") + " match";
        cell.appendChild(mark);
      }
    }

    function outputRows(entry, columns, body) {
      var groups = [], byKey = {};
      columns.forEach(function (c) {
        var key = controls.group.checked ? entry.outputs[c] + "/" + entry.verdicts[c] : "s" + c;
        if (!(key in byKey)) {
          byKey[key] = groups.length;
          groups.push({ output: entry.outputs[c], local: entry.local[c], verdict: entry.verdicts[c], systems: [] });
        }
        groups[byKey[key]].systems.push(c);
      });
      groups.forEach(function (group) {
        var outcome = data.outcomes[outcomeOf(group.verdict)];
        var reason = reasonOf(group.verdict);
        var names = group.systems.map(function (c) { return data.systems[c]; });
        var row = TS.element("tr", "output " + outcome);
        row.setAttribute("data-outcome", outcome);
        row.setAttribute("data-reason", reason);
        row.setAttribute("data-systems", names.join("|"));
        var cell = TS.element("td", "outcome");
        cell.appendChild(TS.element("span", "badge " + outcome, outcome));
        cell.appendChild(TS.element("span", "reason", data.reasons[reason] || reason));
        row.appendChild(cell);
        var all = names.length > 1 && names.length === data.systems.length;
        var who = TS.element("td", "systems", all ? "all " + names.length + " systems" : names.join(", "));
        if (all) who.title = names.join(", ");
        row.appendChild(who);
        var text = group.output >= 0 ? data.strings[group.output] : "";
        var td = TS.element("td", text ? "text" : "text empty");
        if (text) highlighted(td, text, entry.spans[group.local]); else td.textContent = "(no output)";
        row.appendChild(td);
        body.appendChild(row);
      });
    }

    // Why an item is not in the scores, as scoring says (scoring/behind.left_out_reasons).
    function leftOut(entry) {
      return entry.why >= 0 ? data.strings[entry.why] : "left out by a filter of the scores";
    }

    function ruleBlock(entry, open) {
      var details = TS.element("details", "rule");
      details.open = open;
      details.appendChild(TS.element("summary", "", entry.rule ? "rule" : "no rule: every output is a warning"));
      if (!entry.rule) return details;
      var list = TS.element("dl");
      var rows = [["positive regex", entry.rule[0], "pos"], ["negative regex", entry.rule[1], "neg"]];
      rows.forEach(function (r) {
        list.appendChild(TS.element("dt", "", r[0]));
        var dd = TS.element("dd");
        dd.appendChild(r[1] >= 0 ? TS.element("code", r[2], data.strings[r[1]]) : TS.element("span", "muted", "none"));
        list.appendChild(dd);
      });
      [["positive tokens", entry.rule[2], "pos"], ["negative tokens", entry.rule[3], "neg"]].forEach(function (r) {
        if (!r[1].length) return;
        list.appendChild(TS.element("dt", "", r[0]));
        var dd = TS.element("dd");
        r[1].forEach(function (t) { dd.appendChild(TS.element("code", r[2], data.strings[t])); dd.appendChild(document.createTextNode(" ")); });
        list.appendChild(dd);
      });
      if (entry.rule[4]) {
        list.appendChild(TS.element("dt", "", "verdicts"));
        list.appendChild(TS.element("dd", "", entry.rule[4] + " recorded by people (they decide their outputs first)"));
      }
      details.appendChild(list);
      return details;
    }

    function card(match) {
      var entry = match[0];
      var phenomenon = data.phenomena[entry.phenomenon];
      var article = TS.element("article", "item" + (entry.entered ? "" : " excluded"));
      article.setAttribute("data-item", entry.id);
      article.setAttribute("data-category", data.categories[phenomenon[1]]);
      article.setAttribute("data-phenomenon", phenomenon[0]);
      article.setAttribute("data-scored", entry.entered ? "yes" : "no");
      var header = TS.element("header");
      var id = TS.element("a", "id", entry.id);
      id.href = TS.stateHash(target, { item: entry.id });
      id.title = "item view: every system's output";
      header.appendChild(id);
      header.appendChild(TS.element("span", "where", data.categories[phenomenon[1]] + " › " + phenomenon[0]));
      if (!entry.entered) {
        var tag = TS.element("span", "tag", "left out of the scores");
        tag.title = "The fairness rule leaves out an item with a warning or no output for any system";
        header.appendChild(tag);
        header.appendChild(TS.element("span", "why", leftOut(entry)));
      }
      article.appendChild(header);
      article.appendChild(TS.element("p", "source", entry.source >= 0 ? data.strings[entry.source] : ""));
      if (entry.description >= 0) article.appendChild(TS.element("p", "description", data.strings[entry.description]));
      article.appendChild(ruleBlock(entry, Boolean(item)));
      var table = TS.element("table", "outputs");
      var body = TS.element("tbody");
      outputRows(entry, match[1], body);
      table.appendChild(body);
      article.appendChild(table);
      return article;
    }

    // Append the next page of cards (existing cards stay as they are).
    function showMore() {
      shown = TS.showMore(matches.items, shown, PAGE, card, list, more);
      writeStatus();
    }

    // A macro-average row of the tables: its value for a system (from the tables'
    // statistics) and how many rows it averages.
    function macroValue(system) {
      var row = section.querySelector("table[data-stats] tr[data-average='" + average.replace(/'/g, "") + "']");
      if (!row) return null;
      var entry = stats[row.closest("table").getAttribute("data-stats")][Number(row.getAttribute("data-row"))];
      var cell = system >= 0 ? entry[2][system] : null;
      return { value: cell && cell.length ? cell[0] : null };
    }

    // What the list shows, in words and numbers (data-* for tests and scripts): how many
    // items of which set, the outcomes of the outputs shown, a system's passes and accuracy
    // over the scored items (the number of the tables), and the other set one click away.
    // A link of the status line with the separator before it (print leaves out both).
    function linkPart(link) {
      var part = TS.element("span", "link-part", " · ");
      part.appendChild(link);
      status.appendChild(part);
    }

    function writeStatus() {
      var total = matches.items.length;
      var set = item ? "all" : itemSet();
      var counts = {};
      data.outcomes.forEach(function (name, i) { counts[name] = matches.counts[i]; });
      var facts = { items: total, shown: shown, all: data.items.length, scored: matches.scored.yes,
        leftout: matches.scored.no, other: matches.other, set: set || "scored" };
      data.outcomes.forEach(function (name) { facts[name] = counts[name]; });
      Object.keys(facts).forEach(function (key) { status.setAttribute("data-" + key, facts[key]); });
      status.textContent = "";
      var noun = total === 1 ? " item" : " items";
      var what = item ? "item view: every system's output"
        : set === "no" ? "left out of the scores" : set === "all" ? "located (scored or not)"
        : "scored (the items behind the tables' numbers)";
      status.appendChild(TS.element("b", "", TS.number(total) + noun));
      status.appendChild(document.createTextNode(" " + what + " · outputs: " + data.outcomes.map(function (name) {
        return TS.number(counts[name]) + " " + name; }).join(", ")));
      var system = selected(controls.system);
      if (!item && set === "" && system >= 0 && selected(controls.outcome) < 0 && !contrast() && total) {
        status.appendChild(document.createTextNode(" · "));
        status.appendChild(TS.element("b", "rate", data.systems[system] + " passes " + TS.number(counts.pass) + " of " +
          TS.number(total) + ": " + TS.percent(counts.pass / total) + " %"));
      }
      var macro = average && set === "" && !item && selected(controls.category) < 0 ? macroValue(system) : null;
      if (macro) {
        status.appendChild(document.createTextNode(" · "));
        status.appendChild(TS.element("b", "macro", (system >= 0 ? data.systems[system] + "'s " : "the ") + average +
          (macro.value !== null ? ", " + TS.percent(macro.value) + " %," : "")));
        status.appendChild(document.createTextNode(" is the mean of its rows' accuracies over these items (each row counts the same), not passes over items"));
      }
      if (total > shown || shown > PAGE) status.appendChild(document.createTextNode(" · showing " + (shown ? "1–" + TS.number(shown) : "none")));
      if (!item && set !== "all" && matches.other) {
        var wanted = self.state();
        wanted.scored = set === "no" ? "" : "no";
        var link = TS.element("a", "other", set === "no"
          ? TS.number(matches.other) + " scored " + (matches.other === 1 ? "item" : "items") + " of this view"
          : TS.number(matches.other) + " more located " + (matches.other === 1 ? "item was" : "items were") + " left out of the scores (a warning or no output for some system): show " + (matches.other === 1 ? "it" : "them"));
        link.href = TS.stateHash(target, wanted);
        linkPart(link);
      }
      if (item) {
        var back = TS.element("a", "", "back to the list");
        back.href = TS.stateHash(target, {});
        linkPart(back);
      }
    }

    function draw() {
      list.textContent = "";
      shown = 0;
      if (!matches.items.length) list.appendChild(TS.element("p", "empty-state", "No item matches these filters."));
      showMore();
    }

    // The contrast of A and B per category and phenomenon: the items A passes and B fails
    // and the reverse (links to them), and, on the scored items, the difference in accuracy
    // and the exact McNemar p-value, two-sided (both from scoring: the tables' accuracies
    // and scoring/contrast.py). Rows where A and B never differ are left out.
    var phenomenonAt = {};
    data.phenomena.forEach(function (p, i) { phenomenonAt[p[1] + "\u0000" + p[0]] = i; });
    function pairP(row, a, b) {
      var n = data.systems.length, i = Math.min(a, b), j = Math.max(a, b);
      return stats.contrast.p[row][i * n - i * (i + 1) / 2 + (j - i - 1)];
    }
    function accuracy(place, s) {
      var entry = place && stats[place[0]][place[1]];
      var cell = entry && entry[2][s];
      return cell && cell.length ? cell[0] : null;
    }
    function drawCounts() {
      var pair = contrast();
      countsPanel.hidden = !pair || Boolean(item);
      countsPanel.textContent = "";
      if (countsPanel.hidden) return;
      var set = itemSet();
      var perCat = {}, perPhen = {};
      var total = { ab: 0, ba: 0, n: 0 };
      data.items.forEach(function (entry) {
        if (!inSet(entry, set)) return;
        total.n += 1;
        var way = split(entry, pair);
        if (!way) return;
        total[way] += 1;
        (perCat[entry.category] = perCat[entry.category] || { ab: 0, ba: 0 })[way] += 1;
        (perPhen[entry.phenomenon] = perPhen[entry.phenomenon] || { ab: 0, ba: 0 })[way] += 1;
      });
      var A = data.systems[pair.a], B = data.systems[pair.b];
      var scored = set === "";
      countsPanel.appendChild(TS.element("p", "contrast-what", (scored
        ? "Over the " + TS.number(total.n) + " scored items (those behind the tables' numbers): "
        : "Over the " + TS.number(total.n) + (set === "no" ? " items left out of the scores" : " located items") + " (the difference and p are those of the scored items: choose Items: scored): ") +
        "the items on which " + A + " and " + B + " differ, the difference in accuracy (" + A + " − " + B + ", in points) and the exact McNemar test of it (two-sided; it counts only the items on which they differ)."));
      var table = TS.element("table", "counts");
      var head = TS.element("tr");
      ["", A + " passes, " + B + " fails", A + " fails, " + B + " passes", A + " − " + B, "McNemar p"].forEach(function (t) { head.appendChild(TS.element("th", "", t)); });
      table.appendChild(TS.element("thead")).appendChild(head);
      var body = TS.element("tbody");
      function line(index, label, counts, state, kind) {
        var tr = TS.element("tr", kind);
        tr.appendChild(TS.element("th", "", label));
        ["ab", "ba"].forEach(function (way) {
          var td = TS.element("td", "num");
          var link = TS.element("a", "", String(counts[way]));
          var wanted = {}; Object.keys(state).forEach(function (k) { wanted[k] = state[k]; });
          wanted.a = A; wanted.b = B; wanted.dir = way; wanted.scored = set;
          link.href = TS.stateHash(target, wanted);
          td.appendChild(link);
          tr.appendChild(td);
        });
        var place = stats.contrast.rows[index][3];
        var a = accuracy(place, pair.a), b = accuracy(place, pair.b);
        var difference = scored && a !== null && b !== null ? 100 * (a - b) : null;
        var p = scored ? pairP(index, pair.a, pair.b) : null;
        tr.appendChild(TS.element("td", "num diff", difference === null ? "–" : (difference > 0 ? "+" : difference < 0 ? "−" : "±") + TS.fixed(Math.abs(difference), 1)));
        var cell = TS.element("td", "num p" + (p !== null && p < 0.05 ? " significant" : ""), p === null ? "–" : TS.pText(p).replace(/^p = /, ""));
        tr.appendChild(cell);
        tr.setAttribute("data-p", p === null ? "" : String(p));
        body.appendChild(tr);
      }
      stats.contrast.rows.forEach(function (row, index) {
        var level = row[0], category = row[1], phenomenon = row[2];
        if (level === "all") { line(index, "all categories", total, {}, "total"); return; }
        var c = categoryIndex[category];
        if (level === "category") {
          if (perCat[c]) line(index, category, perCat[c], { category: category }, "category");
          return;
        }
        var at = phenomenonAt[c + "\u0000" + phenomenon];
        if (perPhen[at]) line(index, phenomenon, perPhen[at], { category: category, phenomenon: phenomenon }, "phenomenon");
      });
      table.appendChild(body);
      countsPanel.appendChild(table);
    }

    // A view the reader chose: one item, or a filter that narrows the list (the "Items" set
    // alone does not). Only such a view is printed, and then every item of it; the whole
    // list is not (WMT21 de-en: 1,879 items, some 1,500 pages of print).
    function chosen() {
      return Boolean(item) || Boolean(contrast()) || Boolean(controls.q.value.trim()) ||
        ["category", "phenomenon", "system", "outcome"].some(function (name) {
          return controls[name].value !== "" && !controls[name].disabled; });
    }

    // The filters as a line of text: printed above the list (the form is not).
    var printed = root.querySelector(".print-filters");
    function describeFilters() {
      if (!printed) return;
      if (!chosen()) {
        printed.textContent = "The list of items and outputs (" + TS.number(matches.items.length) + " items) is not printed: open the items behind a number (a name, a cell or a dot) or choose a filter, then print, to print every item of that view with its rule.";
        return;
      }
      var label = function (select) { return select.options[select.selectedIndex] ? select.options[select.selectedIndex].textContent : ""; };
      var parts = [];
      if (item) parts.push("item " + item);
      else {
        parts.push("items: " + label(controls.scored));
        ["category", "phenomenon", "system", "outcome"].forEach(function (name) {
          if (controls[name].value !== "" && !controls[name].disabled) parts.push(name + ": " + label(controls[name]).replace(/ \(\d+\)$/, ""));
        });
        var pair = contrast();
        if (pair) parts.push("contrast: " + data.systems[pair.a] + " against " + data.systems[pair.b] + " (" + label(controls.dir) + ")");
        if (controls.q.value.trim()) parts.push("search: “" + controls.q.value.trim() + "”");
      }
      printed.textContent = "Filters: " + parts.join(" · ");
    }

    // Where a sticky head below the filters must stop: under them while they stick.
    function stickyOffset() {
      var style = getComputedStyle(form);
      var below = style.position === "sticky" ? parseFloat(style.top) + form.offsetHeight : 0;
      root.style.setProperty("--below-filters", below + "px");
    }
    window.addEventListener("resize", TS.debounce(stickyOffset, 100));

    function update() {
      matches = filter();
      var pair = contrast();
      controls.system.disabled = controls.outcome.disabled = Boolean(pair);
      root.classList.toggle("item-view", Boolean(item));
      root.classList.toggle("whole-list", !chosen());
      draw();
      drawCounts();
      stickyOffset();
      describeFilters();
      if (self.onupdate) self.onupdate(selected(controls.system));
    }

    // ---- State: names in, names out.
    self.state = function () {
      var state = {};
      var name = function (select, names) { var i = selected(select); return i >= 0 ? names[i] : ""; };
      state.category = name(controls.category, data.categories);
      var p = selected(controls.phenomenon);
      state.phenomenon = p >= 0 ? data.phenomena[p][0] : "";
      state.system = name(controls.system, data.systems);
      state.outcome = name(controls.outcome, data.outcomes);
      state.scored = itemSet();
      state.q = controls.q.value;
      state.a = name(controls.a, data.systems);
      state.b = name(controls.b, data.systems);
      state.dir = state.a && state.b && controls.dir.value !== "ab" ? controls.dir.value : "";
      state.item = item;
      state.group = controls.group.checked ? "" : "no";
      state.average = average;
      return state;
    };

    self.apply = function (state) {
      var get = function (key) { return state[key] || ""; };
      var pick = function (map, key) { return get(key) in map ? String(map[get(key)]) : ""; };
      controls.category.value = pick(categoryIndex, "category");
      if (get("phenomenon") && controls.category.value === "") {
        // A phenomenon alone: its (first) category.
        var first = data.phenomena.findIndex(function (p) { return p[0] === get("phenomenon"); });
        if (first >= 0) controls.category.value = String(data.phenomena[first][1]);
      }
      fillPhenomena();
      var category = selected(controls.category);
      var phenomenon = data.phenomena.findIndex(function (p) { return p[0] === get("phenomenon") && (category < 0 || p[1] === category); });
      controls.phenomenon.value = phenomenon >= 0 ? String(phenomenon) : "";
      controls.system.value = pick(systemIndex, "system");
      controls.outcome.value = pick(outcomeIndex, "outcome");
      controls.scored.value = ["no", "all"].indexOf(get("scored")) >= 0 ? get("scored") : "";
      countOptions();
      controls.q.value = get("q");
      controls.a.value = pick(systemIndex, "a");
      controls.b.value = pick(systemIndex, "b");
      controls.dir.value = ["ba", "both"].indexOf(get("dir")) >= 0 ? get("dir") : "ab";
      controls.group.checked = get("group") !== "no";
      item = get("item") in itemIndex ? get("item") : "";
      average = get("average");
      update();
    };

    self.hash = function () { return TS.stateHash(target, self.state()); };
    // Where a shown view scrolls to: the heading above the filters.
    self.heading = document.getElementById(target) || root;
    self.target = target;

    // Open a view from a link (names), as a new history entry, and bring it into view.
    self.show = function (state) {
      var scrollY = window.scrollY;
      self.apply(state);
      TS.record(self.hash(), true, scrollY);
      self.heading.scrollIntoView();
    };

    // ---- The form: each change is a history entry; typing replaces the current one.
    function changed(push) {
      var scrollY = window.scrollY;
      item = "";
      average = "";
      update();
      TS.record(self.hash(), push, scrollY);
    }
    controls.category.addEventListener("change", function () { fillPhenomena(); changed(true); });
    controls.scored.addEventListener("change", function () { countOptions(); fillPhenomena(); });
    ["phenomenon", "system", "outcome", "scored", "a", "b", "dir"].forEach(function (name) {
      controls[name].addEventListener("change", function () { changed(true); });
    });
    controls.group.addEventListener("change", function () { draw(); TS.record(self.hash(), false); });
    controls.q.addEventListener("input", TS.debounce(function () { changed(false); }, 200));
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.addEventListener("reset", function (event) {
      event.preventDefault();
      self.apply({});
      TS.record(self.hash(), true);
    });
    more.addEventListener("click", showMore);

    // Printing prints every item of the view with its rule, not only the first pages.
    var opened = [];
    window.addEventListener("beforeprint", function () {
      if (!chosen()) return; // the whole list is not printed (see chosen)
      if (shown < matches.items.length) shown = TS.showMore(matches.items, shown, matches.items.length, card, list, more);
      writeStatus();
      opened = Array.prototype.filter.call(list.querySelectorAll("details.rule"), function (d) { return !d.open; });
      opened.forEach(function (d) { d.open = true; });
    });
    window.addEventListener("afterprint", function () {
      opened.forEach(function (d) { d.open = false; });
      opened = [];
    });

    form.elements.namedItem("csv").addEventListener("click", function () {
      var rows = [];
      matches.items.forEach(function (match) {
        var entry = match[0];
        var p = data.phenomena[entry.phenomenon];
        match[1].forEach(function (s) {
          var v = entry.verdicts[s];
          rows.push([data.pair, entry.id, data.categories[p[1]], p[0], entry.entered ? "yes" : "no",
            data.systems[s], data.outcomes[outcomeOf(v)], reasonOf(v),
            entry.source >= 0 ? data.strings[entry.source] : "",
            entry.outputs[s] >= 0 ? data.strings[entry.outputs[s]] : ""]);
        });
      });
      TS.download("testsuite-" + data.pair + "-items.csv", TS.csv(
        ["pair", "item", "category", "phenomenon", "scored", "system", "outcome", "reason", "source", "output"], rows));
    });

    fillPhenomena();
    update();
  }

  TS.Drilldown = Drilldown;
})();
