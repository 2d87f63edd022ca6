// The served app's query form, generated from /api/schema (`heapql help
// query --format json`): one field per option the API takes, so that an
// option added to lua/heapql/schema.lua or commands.lua appears here by
// itself. A flag is a checkbox, an option with choices a select (a list of
// them, `K[,K...]`, a text box that suggests them), a cull list or
// suppressions file a select of the lists the server names, a repeatable
// option as many inputs as wanted ("+" adds one). The form reads and writes
// [[field, value]...] in the schema's order: what /api/query and the page's
// address hold.
(function () {
  'use strict';
  const { el } = window.heapqlView;

  // The schema's options the API takes are the query options: those with a
  // `field` (the others name files or the output, and the server refuses
  // them). The page sets two itself: `series` (the chart's query asks for
  // it) and `detail` (a click on a row).
  const PAGE_OWNED = new Set(['series', 'detail']);

  // The API's (and the address's) name of a query option: its long name
  // without `--` (`--no-default-cull` -> no-default-cull), as the command
  // line spells it; the schema's `field` (default_cull) only says it is one.
  function fieldOf(option) {
    return String(option.option || '').replace(/^--/, '');
  }

  // The schema's options the form offers, in its order.
  function formOptions(schema) {
    return (schema.options || []).filter((option) => option.field && /^--/.test(option.option || '') &&
      !PAGE_OWNED.has(fieldOf(option)));
  }

  // The names a value may take: the schema's choices, or for a list file
  // option the lists the server serves.
  function choicesOf(option, schema) {
    if (Array.isArray(option.choices) && option.choices.length) return option.choices;
    const field = fieldOf(option);
    if (field === 'cull-list') return schema.cull_lists || [];
    if (field === 'suppressions') return schema.suppression_lists || [];
    return null;
  }

  function isListValue(option) {
    return /,/.test(option.value || '');
  }

  // One input for `option` holding `value`.
  function input(option, schema, value) {
    const field = fieldOf(option);
    const choices = choicesOf(option, schema);
    let node;
    if (choices && !isListValue(option)) {
      node = el('select', { name: field });
      const none = option.default !== undefined && option.default !== null && option.default !== ''
        ? '(default: ' + option.default + ')' : '(none)';
      node.append(el('option', { value: '', text: none }));
      for (const choice of choices) node.append(el('option', { value: choice, text: choice }));
      if (value && !choices.includes(value)) node.append(el('option', { value, text: value }));
      node.value = value || '';
    } else {
      node = el('input', { type: 'text', name: field, size: option.repeatable ? '22' : '18' });
      node.placeholder = option.value || '';
      if (choices) {
        const listId = 'choices-' + field;
        node.setAttribute('list', listId);
        if (!document.getElementById(listId)) {
          document.body.append(el('datalist', { id: listId }, ...choices.map((c) => el('option', { value: c }))));
        }
      }
      node.value = value || '';
    }
    node.dataset.field = field;
    return node;
  }

  // The form: one labelled field an option, in the schema's order.
  function build(container, schema) {
    container.replaceChildren();
    const fields = [];
    for (const option of formOptions(schema)) {
      const field = fieldOf(option);
      const title = option.help || option.doc || '';
      const wrap = el('div', { className: 'field', title });
      wrap.dataset.field = field;
      if (option.flag) {
        const box = el('input', { type: 'checkbox', name: field });
        box.dataset.field = field;
        wrap.append(el('label', null, box, ' ' + option.option));
      } else {
        const name = el('span', { className: 'option-name', text: option.option });
        const inputs = el('span', { className: 'inputs' });
        inputs.append(input(option, schema, ''));
        wrap.append(el('label', null, name, ' ', inputs));
        if (option.repeatable) {
          const more = el('button', { type: 'button', className: 'add-more', title: 'another ' + option.option, text: '+' });
          more.addEventListener('click', () => {
            const next = input(option, schema, '');
            inputs.append(next);
            next.focus();
          });
          wrap.append(more);
        }
      }
      container.append(wrap);
      fields.push({ option, field, wrap });
    }
    return {
      fields,
      // [[field, value]...]: a checked flag as '', every non-empty input.
      read() {
        const params = [];
        for (const { option, field, wrap } of fields) {
          if (option.flag) {
            if (wrap.querySelector('input').checked) params.push([field, '']);
            continue;
          }
          for (const node of wrap.querySelectorAll('[data-field]')) {
            const value = node.value.trim();
            if (value !== '') params.push([field, value]);
          }
        }
        return params;
      },
      // Shows `params` (fields the form does not have are left to the caller).
      write(params) {
        for (const { option, field, wrap } of fields) {
          const values = params.filter(([name]) => name === field).map(([, value]) => value);
          if (option.flag) {
            wrap.querySelector('input').checked = values.length > 0 && values[0] !== '0' && values[0] !== 'false';
            continue;
          }
          const inputs = wrap.querySelector('.inputs');
          const wanted = Math.max(1, option.repeatable ? values.length : 1);
          const nodes = Array.from(inputs.children);
          for (let i = nodes.length; i < wanted; i++) inputs.append(input(option, schema, ''));
          for (let i = wanted; i < nodes.length; i++) nodes[i].remove();
          Array.from(inputs.children).forEach((node, i) => {
            const value = values[i] || '';
            if (node.tagName === 'SELECT' && value && !Array.from(node.options).some((o) => o.value === value)) {
              node.append(el('option', { value, text: value }));
            }
            node.value = value;
          });
        }
      },
      has(field) {
        return fields.some((f) => f.field === field);
      },
    };
  }

  // A recipe's params (`heapql list --format json`) as a form of text boxes,
  // each showing its default.
  function buildRecipe(container, recipe) {
    container.replaceChildren();
    const inputs = [];
    for (const param of recipe ? recipe.params || [] : []) {
      const node = el('input', { type: 'text', name: param.name, size: '16' });
      node.placeholder = param.default === undefined || param.default === null ? '' : String(param.default);
      node.dataset.param = param.name;
      container.append(el('div', { className: 'field', title: param.doc || '' },
        el('label', null, el('span', { className: 'option-name', text: param.name }),
          ' ', node, ' ', el('span', { className: 'hint', text: (param.type || '') + (param.doc ? ': ' + param.doc : '') }))));
      inputs.push(node);
    }
    return {
      read: () => inputs.filter((n) => n.value.trim() !== '').map((n) => [n.dataset.param, n.value.trim()]),
      write(params) {
        for (const node of inputs) {
          const found = params.find(([name]) => name === node.dataset.param);
          node.value = found ? found[1] : '';
        }
      },
    };
  }

  window.heapqlForm = { build, buildRecipe, fieldOf, formOptions };
})();
