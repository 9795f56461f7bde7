// What a person would see wrong in the layout (tests/support/browser.py runs it in a page):
// a page wider than its window, a board wider than the page, controls that overlap.
(() => {
  const problems = [];
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > width + 1)
    problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
  for (const svg of document.querySelectorAll("svg.board")) {
    const box = svg.getBoundingClientRect();
    if (box.right > width + 1 || box.left < -1)
      problems.push(`the board overflows: ${box.left}..${box.right}`);
  }
  const controls = [...document.querySelectorAll("button, input, select, a")]
    .filter((node) => node.offsetParent !== null && !node.closest(".moves"))
    .map((node) => [node, node.getBoundingClientRect()]);
  for (let i = 0; i < controls.length; i++)
    for (let j = i + 1; j < controls.length; j++) {
      const [a, p] = controls[i],
        [b, q] = controls[j];
      if (
        a.contains(b) ||
        b.contains(a) ||
        (a.closest("label") === b.closest("label") && a.closest("label"))
      )
        continue;
      const overlap =
        Math.min(p.right, q.right) - Math.max(p.left, q.left) > 2 &&
        Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top) > 2;
      if (overlap) problems.push(`${a.textContent || a.id} overlaps ${b.textContent || b.id}`);
    }
  return problems;
})();
