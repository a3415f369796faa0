// SPDX-License-Identifier: MIT
#include "ui/report/pagination.h"

#include <QAbstractTextDocumentLayout>
#include <QImage>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextImageFormat>
#include <QTextLayout>
#include <QUrl>

#include <algorithm>
#include <cmath>
#include <set>

namespace gaplens::ui {

namespace {

// One top-level block or table of the document, where the layout put it.
struct Item
{
    QTextBlock block; // invalid for a table
    QRectF rect;
    bool heading = false;
    bool picture = false; // a paragraph holding one image
};

QTextFragment imageFragment(const QTextBlock &block)
{
    for (auto it = block.begin(); !it.atEnd(); ++it)
        if (it.fragment().charFormat().isImageFormat())
            return it.fragment();
    return {};
}

// Where the block's text or picture is: its own rect keeps its place when the layout pushes
// its lines to the next page, so the rect comes from its first and last lines.
QRectF contentRect(const QTextDocument &doc, const QTextBlock &block)
{
    const QRectF rect = doc.documentLayout()->blockBoundingRect(block);
    const QTextLayout *lines = block.layout();
    if (!lines || lines->lineCount() == 0)
        return rect;
    const QTextLine first = lines->lineAt(0), last = lines->lineAt(lines->lineCount() - 1);
    return QRectF(rect.left(), rect.top() + first.y(), rect.width(), last.y() + last.height() - first.y());
}

std::vector<Item> items(const QTextDocument &doc)
{
    std::vector<Item> out;
    QAbstractTextDocumentLayout *layout = doc.documentLayout();
    for (auto it = doc.rootFrame()->begin(); !it.atEnd(); ++it) {
        Item item;
        if (QTextFrame *frame = it.currentFrame()) {
            item.rect = layout->frameBoundingRect(frame);
        } else {
            item.block = it.currentBlock();
            if (!item.block.isValid() || item.block.length() <= 1) // an empty paragraph takes no place worth keeping
                continue;
            item.rect = contentRect(doc, item.block);
            item.heading = item.block.blockFormat().headingLevel() > 0;
            item.picture = imageFragment(item.block).isValid();
        }
        out.push_back(item);
    }
    return out;
}

int pageOf(double y, double pageHeight)
{
    return int(std::floor(y / pageHeight));
}

void breakBefore(const QTextBlock &block, bool on)
{
    QTextBlockFormat f;
    f.setPageBreakPolicy(on ? QTextFormat::PageBreak_AlwaysBefore : QTextFormat::PageBreak_Auto);
    QTextCursor(block).mergeBlockFormat(f);
}

// The picture's format with its width and height set (from the image when the HTML gave none).
QTextImageFormat pictureFormat(const QTextDocument &doc, const QTextBlock &block)
{
    QTextImageFormat image = imageFragment(block).charFormat().toImageFormat();
    const QImage resource = doc.resource(QTextDocument::ImageResource, QUrl(image.name())).value<QImage>();
    if (image.width() <= 0)
        image.setWidth(resource.width());
    if (image.height() <= 0 && resource.width() > 0)
        image.setHeight(image.width() * resource.height() / resource.width());
    return image;
}

void setPictureFormat(QTextDocument &doc, const QTextBlock &block, const QTextImageFormat &image)
{
    const QTextFragment fragment = imageFragment(block);
    QTextCursor cursor(&doc);
    cursor.setPosition(fragment.position());
    cursor.setPosition(fragment.position() + fragment.length(), QTextCursor::KeepAnchor);
    cursor.setCharFormat(image);
}

// A page left less than half full is "mostly blank": a picture shrinks down to half its size
// to stay on it. On a fuller page it shrinks a little (to 80%), so that a picture that nearly
// fits (the second of a before/after pair) stays beside what it follows.
constexpr double kMostlyBlank = 0.5;
constexpr double kSmallestPicture = 0.5;
constexpr double kSmallestNearlyFitting = 0.8;

} // namespace

std::vector<PageFill> pageFills(const QTextDocument &doc)
{
    const double pageHeight = doc.pageSize().height();
    std::vector<PageFill> out;
    if (pageHeight <= 0)
        return out;
    for (const Item &item : items(doc)) {
        const int first = pageOf(item.rect.top(), pageHeight);
        const int last = pageOf(std::max(item.rect.top(), item.rect.bottom() - 1), pageHeight);
        for (int page = first; page <= last; ++page) {
            const double bottom = std::min(item.rect.bottom(), (page + 1) * pageHeight) - page * pageHeight;
            if (out.empty() || out.back().page != page)
                out.push_back({ page, 0 });
            out.back().fill = std::max(out.back().fill, bottom / pageHeight);
        }
    }
    return out;
}

int paginate(QTextDocument &doc)
{
    const double pageHeight = doc.pageSize().height();
    if (pageHeight <= 0)
        return 0;
    int changes = 0;
    std::set<int> triedPictures; // block numbers: each picture is shrunk at most once
    // One fix per pass, top down, then lay out again: every fix moves what follows it. Each
    // fix moves a heading down or shrinks a picture, so the passes end; the bound is a guard.
    for (int pass = 0; pass < 200; ++pass) {
        const std::vector<Item> all = items(doc);
        bool fixed = false;
        for (std::size_t i = 0; i < all.size() && !fixed; ++i) {
            const Item &item = all[i];
            const Item *next = i + 1 < all.size() ? &all[i + 1] : nullptr;
            const int page = pageOf(item.rect.top(), pageHeight);
            // A heading ending its page: it goes to the next one with what it heads.
            if (item.heading && next && pageOf(next->rect.top(), pageHeight) > page
                && item.block.blockFormat().pageBreakPolicy() != QTextFormat::PageBreak_AlwaysBefore) {
                breakBefore(item.block, true);
                fixed = true;
                break;
            }
            // What starts a page (a picture, or a heading with its picture) after a page with
            // room left: shrink the picture until it fits there.
            if (i == 0)
                continue;
            const Item &before = all[i - 1];
            const int previous = pageOf(std::max(before.rect.top(), before.rect.bottom() - 1), pageHeight);
            if (previous >= page)
                continue;
            const bool mostlyBlank = (before.rect.bottom() - previous * pageHeight) / pageHeight < kMostlyBlank;
            const double smallest = mostlyBlank ? kSmallestPicture : kSmallestNearlyFitting;
            const Item *picture = item.picture ? &item : (item.heading && next && next->picture ? next : nullptr);
            if (!picture || !triedPictures.insert(picture->block.blockNumber()).second)
                continue;
            const QTextImageFormat original = pictureFormat(doc, picture->block);
            if (item.heading)
                breakBefore(item.block, false);
            // The largest size, in 5% steps down to `smallest`, that stays on the previous page.
            bool fits = false;
            for (int step = 1; step * 0.05 <= 1 - smallest + 1e-9 && !fits; ++step) {
                QTextImageFormat smaller = original;
                smaller.setWidth(std::floor(original.width() * (1 - step * 0.05)));
                smaller.setHeight(std::floor(original.height() * (1 - step * 0.05)));
                setPictureFormat(doc, picture->block, smaller);
                const QRectF now = contentRect(doc, picture->block);
                fits = pageOf(std::max(now.top(), now.bottom() - 1), pageHeight) == previous;
            }
            if (fits) {
                fixed = true;
            } else {
                setPictureFormat(doc, picture->block, original);
                if (item.heading)
                    breakBefore(item.block, true);
            }
        }
        if (!fixed)
            break;
        ++changes;
    }
    return changes;
}

} // namespace gaplens::ui
