// SPDX-License-Identifier: MIT
#pragma once
// A column of the model: a std::vector whose storage is either its own (the heap) or a view of
// bytes mapped from a file that it keeps mapped (the report cache's entry, read/report_cache.h).
// A view lets a reopen use the cached columns where they lie: no copy and no zero-filled pages
// first, and the pages are the OS's to drop and read again, so a capture larger than memory
// opens. The mapping is private and writable, so a write to a viewed column copies only the
// page it touches and never reaches the file.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace gaplens::core {

// The mapped items a column views, shared by every copy of its allocator.
struct ColumnView
{
    void *items = nullptr;
    std::size_t bytes = 0;
    bool taken = false; // handed out as a column's storage (once only)
    std::shared_ptr<const void> owner; // keeps the items mapped
};

// What viewColumn "constructs" each item from: nothing, as the mapped item is already there.
// A type rather than a flag, so that the construction loop compiles to nothing at any
// optimisation level (a flag tested per item stays a loop over every item at -O2).
struct MappedItem
{
};

template <typename T> class ColumnAllocator
{
public:
    using value_type = T;
    // A moved or swapped column takes its storage's allocator along (a view stays a view); a
    // copied one owns its copy (select_on_container_copy_construction).
    using propagate_on_container_move_assignment = std::true_type;
    using propagate_on_container_swap = std::true_type;
    using propagate_on_container_copy_assignment = std::false_type;
    using is_always_equal = std::false_type;

    ColumnAllocator() noexcept = default;
    // The first allocation of exactly the view's size is the view.
    explicit ColumnAllocator(std::shared_ptr<ColumnView> view) noexcept
        : m_view(std::move(view))
    {
    }
    template <typename U> friend class ColumnAllocator;
    // A rebound allocator (for another type) owns its storage.
    template <typename U> explicit ColumnAllocator(const ColumnAllocator<U> &) noexcept { }

    T *allocate(std::size_t n)
    {
        if (m_view && !m_view->taken && n * sizeof(T) == m_view->bytes) {
            m_view->taken = true;
            return static_cast<T *>(m_view->items);
        }
        return std::allocator<T>().allocate(n);
    }
    void deallocate(T *p, std::size_t n) noexcept
    {
        if (!isView(p)) // the view is unmapped with its owner
            std::allocator<T>().deallocate(p, n);
    }
    // A viewed item is already there: its bytes stay as mapped.
    template <typename U> void construct(U *, MappedItem) noexcept { }
    template <typename U, typename... Args>
    requires(!(std::is_same_v<std::remove_cvref_t<Args>, MappedItem> || ...)) void construct(U *p, Args &&...args)
    {
        ::new (static_cast<void *>(p)) U(std::forward<Args>(args)...);
    }
    ColumnAllocator select_on_container_copy_construction() const noexcept { return {}; }
    // Whether `p` is the mapped view (a column's data() that is mapped bytes).
    bool isView(const T *p) const noexcept { return p && m_view && p == m_view->items; }

    friend bool operator==(const ColumnAllocator &a, const ColumnAllocator &b) noexcept { return a.m_view == b.m_view; }

private:
    std::shared_ptr<ColumnView> m_view;
};

template <typename T> using Column = std::vector<T, ColumnAllocator<T>>;

// Counts the items of a view for std::vector's range constructor, which then constructs each
// item from a MappedItem (a no-op) in storage that is the view: one allocation, no writes.
class MappedItems
{
public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = MappedItem;
    using difference_type = std::ptrdiff_t;
    using pointer = const MappedItem *;
    using reference = MappedItem;

    MappedItems() = default;
    explicit MappedItems(std::size_t index) noexcept
        : m_index(index)
    {
    }
    MappedItem operator*() const noexcept { return {}; }
    MappedItems &operator++() noexcept
    {
        ++m_index;
        return *this;
    }
    MappedItems operator++(int) noexcept
    {
        auto before = *this;
        ++m_index;
        return before;
    }
    friend bool operator==(MappedItems, MappedItems) noexcept = default;

private:
    std::size_t m_index = 0;
};

// A column of `count` items that are the bytes at `view` (aligned for T), kept alive by `owner`.
template <typename T> Column<T> viewColumn(const T *view, std::size_t count, std::shared_ptr<const void> owner)
{
    static_assert(std::is_trivially_copyable_v<T>);
    auto shared = std::make_shared<ColumnView>();
    shared->items = const_cast<T *>(view);
    shared->bytes = count * sizeof(T);
    shared->owner = std::move(owner);
    return Column<T>(MappedItems(0), MappedItems(count), ColumnAllocator<T>(std::move(shared)));
}

// A column equals a plain vector with the same items (either way round, by C++20's rewriting).
template <typename T> bool operator==(const Column<T> &column, const std::vector<T> &values)
{
    return std::equal(column.begin(), column.end(), values.begin(), values.end());
}

// Whether a column's items are mapped bytes rather than its own.
template <typename T> bool isMappedColumn(const Column<T> &column)
{
    return column.get_allocator().isView(column.data());
}

} // namespace gaplens::core
