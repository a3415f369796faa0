// SPDX-License-Identifier: MIT
#pragma once
#include <vector>

class QTextDocument;

namespace gaplens::ui {

// Page breaks for a report laid out in pages (QTextDocument::setPageSize set): a heading is
// never the last thing on its page while what follows it starts on the next, and a picture
// pushed to the next page is shrunk, in 5% steps, to stay on the previous one: down to half
// its size when that page would otherwise be left more than half blank, else down to 80%.
// Works on the document's top-level blocks and tables; returns the number of changes made.
int paginate(QTextDocument &doc);

// How full each page is, 0..1: the bottom of its last top-level block or table over the page
// height (the last page's too). For tests and for paginate's own rule.
struct PageFill
{
    int page = 0;
    double fill = 0;
};
std::vector<PageFill> pageFills(const QTextDocument &doc);

} // namespace gaplens::ui
