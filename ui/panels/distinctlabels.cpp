// SPDX-License-Identifier: MIT
#include "ui/panels/distinctlabels.h"

#include "ui/panels/chartutil.h"

#include <QList>
#include <QSet>

namespace gaplens::ui {

namespace {

// A name cut into words (letters and digits) and the separators between them, in order.
struct Piece
{
    QString text;
    bool word = false;
};

QList<Piece> splitWords(const QString &name)
{
    QList<Piece> pieces;
    for (const QChar c : name) {
        const bool word = c.isLetterOrNumber();
        if (pieces.isEmpty() || pieces.back().word != word)
            pieces.push_back({ QString(), word });
        pieces.back().text += c;
    }
    return pieces;
}

QString firstWord(const QList<Piece> &pieces)
{
    for (const auto &p : pieces)
        if (p.word)
            return p.text;
    return {};
}

QSet<QString> wordsOf(const QList<Piece> &pieces)
{
    QSet<QString> words;
    for (const auto &p : pieces)
        if (p.word)
            words.insert(p.text);
    return words;
}

// The name without the words in `common` (its first word always stays); each run of dropped
// words and their separators becomes one ellipsis.
QString dropCommonWords(const QList<Piece> &pieces, const QSet<QString> &common)
{
    QString out;
    QString pendingSeparator;
    bool seenWord = false, dropping = false;
    for (const auto &p : pieces) {
        if (!p.word) {
            if (!dropping)
                pendingSeparator += p.text;
            continue;
        }
        const bool keep = !seenWord || !common.contains(p.text);
        seenWord = true;
        if (!keep) {
            if (!dropping)
                out += QChar(0x2026);
            dropping = true;
            pendingSeparator.clear();
            continue;
        }
        out += dropping ? QString() : pendingSeparator;
        out += p.text;
        pendingSeparator.clear();
        dropping = false;
    }
    return out;
}

} // namespace

QStringList distinctLabels(const QStringList &names, int max)
{
    QList<QList<Piece>> pieces;
    for (const auto &name : names)
        pieces.push_back(splitWords(name));
    QStringList labels;
    for (qsizetype i = 0; i < names.size(); ++i) {
        if (names[i].size() <= max) {
            labels << names[i];
            continue;
        }
        const QString family = firstWord(pieces[i]);
        QSet<QString> common = wordsOf(pieces[i]);
        bool hasRelative = false;
        for (qsizetype j = 0; j < names.size(); ++j) {
            if (j == i || names[j].size() <= max || firstWord(pieces[j]) != family)
                continue;
            common.intersect(wordsOf(pieces[j]));
            hasRelative = true;
        }
        const QString label = hasRelative ? dropCommonWords(pieces[i], common) : names[i];
        labels << elideMiddle(label, max);
    }
    return labels;
}

} // namespace gaplens::ui
