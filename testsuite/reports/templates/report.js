// testsuite score report: the drill-down (filters, pages) and the links from tables and charts.
// Data: one <script type="application/json" class="report-data"> per language pair, in the
// compact form of html.drilldown_data; `expand` turns each item into
// [id, phenomenon, source, description, outputs, verdicts] with one string index (outputs)
// and one index into data.verdicts ([outcome, reason]) per system; -1: none.
// Everything from the data is inserted with textContent, never as markup.
(function () {
  "use strict";
  var PAGE = 20;

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function option(select, value, text) {
    var node = element("option", "", text);
    node.value = value;
    select.appendChild(node);
  }

  function expand(data) {
    var letters = {};
    for (var i = 0; i < data.alphabet.length; i++) letters[data.alphabet.charAt(i)] = i;
    function decode(letter) {
      if (letter === "-") return -1;
      return letter in letters ? letters[letter] : letter.charCodeAt(0) - 256;
    }
    data.items = data.items.map(function (item) {
      var outputs = [];
      var verdicts = [];
      for (var s = 0; s < data.systems.length; s++) {
        var local = decode(item[5].charAt(s));
        outputs.push(local < 0 ? -1 : item[4][local]);
        verdicts.push(decode(item[6].charAt(s)));
      }
      return [item[0], item[1], item[2], item[3], outputs, verdicts];
    });
    return data;
  }

  function Drilldown(section) {
    var data = expand(JSON.parse(section.querySelector("script.report-data").textContent));
    var root = section.querySelector(".drilldown");
    var form = root.querySelector("form.filters");
    var controls = {
      category: form.elements.namedItem("category"),
      phenomenon: form.elements.namedItem("phenomenon"),
      system: form.elements.namedItem("system"),
      outcome: form.elements.namedItem("outcome"),
      search: form.elements.namedItem("search"),
      group: form.elements.namedItem("group")
    };
    var list = root.querySelector(".items");
    var status = root.querySelector(".status");
    var pagers = root.querySelectorAll(".pager");
    var lower = null; // lower-cased strings, made on the first search
    var page = 0;
    var matches = [];

    // Counts per category and phenomenon for the option labels.
    var perPhenomenon = data.phenomena.map(function () { return 0; });
    var perCategory = data.categories.map(function () { return 0; });
    data.items.forEach(function (item) {
      perPhenomenon[item[1]] += 1;
      perCategory[data.phenomena[item[1]][1]] += 1;
    });

    option(controls.category, "", "all categories (" + data.categories.length + ")");
    data.categories.forEach(function (name, i) {
      option(controls.category, String(i), name + " (" + perCategory[i] + ")");
    });
    option(controls.system, "", "all systems (" + data.systems.length + ")");
    data.systems.forEach(function (name, i) { option(controls.system, String(i), name); });
    option(controls.outcome, "", "any outcome");
    data.outcomes.forEach(function (name, i) { option(controls.outcome, String(i), name); });

    function fillPhenomena() {
      var keep = controls.phenomenon.value;
      var category = controls.category.value;
      controls.phenomenon.textContent = "";
      option(controls.phenomenon, "", "all phenomena");
      var kept = false;
      data.phenomena.forEach(function (p, i) {
        if (category === "" || String(p[1]) === category) {
          option(controls.phenomenon, String(i), p[0] + " (" + perPhenomenon[i] + ")");
          kept = kept || String(i) === keep;
        }
      });
      controls.phenomenon.value = kept ? keep : "";
    }

    // The outcome index of a verdict, with "no output at all" counted as missing.
    var MISSING = data.outcomes.indexOf("missing");
    function outcomeOf(verdict) { return verdict < 0 ? MISSING : data.verdicts[verdict][0]; }

    function contains(index, query) {
      return index >= 0 && lower[index].indexOf(query) >= 0;
    }

    // Items matching the filters, each with the systems (columns) to show.
    function filter() {
      var category = controls.category.value === "" ? -1 : Number(controls.category.value);
      var phenomenon = controls.phenomenon.value === "" ? -1 : Number(controls.phenomenon.value);
      var system = controls.system.value === "" ? -1 : Number(controls.system.value);
      var outcome = controls.outcome.value === "" ? -1 : Number(controls.outcome.value);
      var query = controls.search.value.trim().toLowerCase();
      if (query && lower === null) {
        lower = data.strings.map(function (s) { return s.toLowerCase(); });
      }
      var found = [];
      var counts = data.outcomes.map(function () { return 0; });
      data.items.forEach(function (item) {
        if (phenomenon >= 0 && item[1] !== phenomenon) return;
        if (category >= 0 && data.phenomena[item[1]][1] !== category) return;
        var columns = [];
        for (var s = 0; s < data.systems.length; s++) {
          if (system >= 0 && s !== system) continue;
          if (outcome >= 0 && outcomeOf(item[5][s]) !== outcome) continue;
          columns.push(s);
        }
        if (!columns.length) return;
        if (query) {
          var hit = item[0].toLowerCase().indexOf(query) >= 0 || contains(item[2], query) ||
            contains(item[3], query) || columns.some(function (c) { return contains(item[4][c], query); });
          if (!hit) return;
        }
        columns.forEach(function (c) { counts[outcomeOf(item[5][c])] += 1; });
        found.push([item, columns]);
      });
      return { items: found, counts: counts };
    }

    function outputRows(item, columns, table) {
      var groups = [];
      var byKey = {};
      columns.forEach(function (c) {
        var key = controls.group.checked ? item[4][c] + "/" + item[5][c] : String(c);
        if (!(key in byKey)) {
          byKey[key] = groups.length;
          groups.push({ output: item[4][c], verdict: item[5][c], systems: [] });
        }
        groups[byKey[key]].systems.push(c);
      });
      groups.forEach(function (group) {
        var outcome = data.outcomes[outcomeOf(group.verdict)];
        var reason = group.verdict < 0 ? "no output for this item" :
          data.strings[data.verdicts[group.verdict][1]];
        var names = group.systems.map(function (c) { return data.systems[c]; });
        var row = element("tr", "output " + outcome);
        row.setAttribute("data-outcome", outcome);
        row.setAttribute("data-systems", names.join("|"));
        var cell = element("td", "outcome");
        var badge = element("span", "badge " + outcome, outcome);
        badge.title = "reason: " + reason;
        cell.appendChild(badge);
        row.appendChild(cell);
        var all = names.length > 1 && names.length === data.systems.length;
        row.appendChild(element("td", "systems", all ? "all " + names.length + " systems" :
          names.join(", ")));
        if (all) row.lastChild.title = names.join(", ");
        var text = group.output >= 0 ? data.strings[group.output] : "";
        row.appendChild(element("td", text ? "text" : "text empty", text || "(no output)"));
        table.appendChild(row);
      });
    }

    function card(entry) {
      var item = entry[0];
      var phenomenon = data.phenomena[item[1]];
      var article = element("article", "item");
      article.setAttribute("data-item", item[0]);
      article.setAttribute("data-category", data.categories[phenomenon[1]]);
      article.setAttribute("data-phenomenon", phenomenon[0]);
      var header = element("header");
      header.appendChild(element("code", "id", item[0]));
      header.appendChild(element("span", "where", data.categories[phenomenon[1]] + " › " + phenomenon[0]));
      if (data.fair && item[5].some(function (v) { return outcomeOf(v) >= 2; })) {
        var tag = element("span", "tag", "not scored");
        tag.title = "A system has a warning or no output for this item, so the fairness rule leaves it out of the scores.";
        header.appendChild(tag);
      }
      article.appendChild(header);
      article.appendChild(element("p", "source", item[2] >= 0 ? data.strings[item[2]] : ""));
      if (item[3] >= 0) article.appendChild(element("p", "description", data.strings[item[3]]));
      var table = element("table", "outputs");
      var body = element("tbody");
      outputRows(item, entry[1], body);
      table.appendChild(body);
      article.appendChild(table);
      return article;
    }

    function button(label, target, enabled) {
      var node = element("button", "", label);
      node.type = "button";
      node.disabled = !enabled;
      node.addEventListener("click", function () {
        page = target;
        draw();
        root.scrollIntoView();
      });
      return node;
    }

    function draw() {
      var pages = Math.max(1, Math.ceil(matches.items.length / PAGE));
      page = Math.min(page, pages - 1);
      var start = page * PAGE;
      var shown = matches.items.slice(start, start + PAGE);
      var fragment = document.createDocumentFragment();
      shown.forEach(function (entry) { fragment.appendChild(card(entry)); });
      list.textContent = "";
      if (shown.length) {
        list.appendChild(fragment);
      } else {
        list.appendChild(element("p", "empty-state", "No item matches these filters."));
      }
      status.textContent = "";
      var total = matches.items.length;
      status.appendChild(element("b", "", total ? (start + 1) + "–" + (start + shown.length) : "0"));
      status.appendChild(document.createTextNode(" of " + total.toLocaleString("en") +
        " items (" + data.items.length.toLocaleString("en") + " in all) · outputs: " +
        data.outcomes.map(function (name, i) {
          return matches.counts[i].toLocaleString("en") + " " + name;
        }).join(", ")));
      pagers.forEach(function (pager) {
        pager.textContent = "";
        pager.appendChild(button("‹ previous", page - 1, page > 0));
        pager.appendChild(element("span", "pageno", "page " + (page + 1) + " of " + pages));
        pager.appendChild(button("next ›", page + 1, page + 1 < pages));
      });
    }

    function update() {
      matches = filter();
      page = 0;
      draw();
      highlight(section, controls.system.value === "" ? -1 : Number(controls.system.value));
    }

    var timer = null;
    controls.category.addEventListener("change", function () { fillPhenomena(); update(); });
    [controls.phenomenon, controls.system, controls.outcome].forEach(function (control) {
      control.addEventListener("change", update);
    });
    controls.group.addEventListener("change", draw);
    controls.search.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(update, 150);
    });
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.addEventListener("reset", function () {
      setTimeout(function () { fillPhenomena(); update(); }, 0);
    });

    // Open the drill-down on a category, phenomenon and/or system (-1: all).
    this.show = function (category, phenomenon, system) {
      if (category < 0 && phenomenon >= 0) category = data.phenomena[phenomenon][1];
      controls.category.value = category >= 0 ? String(category) : "";
      fillPhenomena();
      controls.phenomenon.value = phenomenon >= 0 ? String(phenomenon) : "";
      if (system !== undefined) controls.system.value = system >= 0 ? String(system) : "";
      update();
      root.scrollIntoView();
    };

    fillPhenomena();
    update();
  }

  // Follow one system in the category chart (-1: none).
  function highlight(section, system) {
    section.querySelectorAll("svg.dotplot").forEach(function (svg) {
      svg.classList.toggle("focus", system >= 0);
      svg.querySelectorAll(".dot").forEach(function (dot) {
        dot.classList.toggle("on", Number(dot.getAttribute("data-s")) === system);
      });
    });
    section.querySelectorAll("ul.legend li").forEach(function (li) {
      li.classList.toggle("on", Number(li.getAttribute("data-s")) === system);
    });
  }

  function number(node, name) {
    var value = node.getAttribute(name);
    return value === null ? -1 : Number(value);
  }

  function connect(section) {
    var drilldown = new Drilldown(section);
    var selected = function () {
      var value = section.querySelector(".drilldown select[name=system]").value;
      return value === "" ? -1 : Number(value);
    };
    // Rows of the paper tables and cells of the heatmap open their items.
    section.querySelectorAll("table.paper tr.link").forEach(function (row) {
      row.addEventListener("click", function () {
        drilldown.show(number(row, "data-category"), number(row, "data-phenomenon"));
      });
    });
    section.querySelectorAll("table.heatmap").forEach(function (table) {
      var systems = Array.prototype.map.call(table.querySelectorAll("thead th.sys"),
        function (th) { return th.textContent; });
      // Tooltips are made on first hover (1,900 title attributes would weigh 100 kB).
      table.addEventListener("mouseover", function (event) {
        var cell = event.target.closest("td.cell");
        if (!cell || cell.title) return;
        var row = cell.parentElement;
        var column = Array.prototype.indexOf.call(row.querySelectorAll("td.cell"), cell);
        cell.title = systems[column] + " · " + row.querySelector("th").textContent + " (" +
          row.querySelector("td.num").textContent + " items): " + cell.textContent + " %";
      });
      table.addEventListener("click", function (event) {
        var cell = event.target.closest("td.cell");
        var row = cell && cell.parentElement;
        if (!row || !row.hasAttribute("data-phenomenon")) return;
        var column = Array.prototype.indexOf.call(row.querySelectorAll("td.cell"), cell);
        drilldown.show(-1, number(row, "data-phenomenon"), column);
      });
    });
    // The category chart: hover follows a system; a dot opens its category and system.
    section.querySelectorAll("svg.dotplot .dot, ul.legend li").forEach(function (node) {
      var system = number(node, "data-s");
      node.addEventListener("mouseenter", function () { highlight(section, system); });
      node.addEventListener("mouseleave", function () { highlight(section, selected()); });
    });
    section.querySelectorAll("ul.legend li").forEach(function (node) {
      node.addEventListener("click", function () {
        var system = number(node, "data-s");
        drilldown.show(-1, -1, system === selected() ? -1 : system);
      });
    });
    section.querySelectorAll("svg.dotplot .dot").forEach(function (dot) {
      dot.addEventListener("click", function () {
        var category = number(dot, "data-category");
        drilldown.show(category, -1, number(dot, "data-s"));
      });
    });
  }

  document.querySelectorAll("section.pair").forEach(connect);
})();
