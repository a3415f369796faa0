// SPDX-License-Identifier: MIT
// StringPool interns each text once, keeps ids dense and stable across segment
// boundaries, and lets a loader read its own strings while other loaders intern
// (the report readers share one pool; under ASan a reader once read a freed block map).
#include "gaplens/core/model/string_pool.h"

#include <QTest>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace gaplens::core;

class TestStringPool : public QObject
{
    Q_OBJECT

private slots:
    void emptyStringIsIdZero()
    {
        StringPool pool;
        QCOMPARE(pool.size(), std::size_t(1));
        QCOMPARE(pool.intern(""), kEmptyString);
        QCOMPARE(pool.get(kEmptyString), std::string());
        QCOMPARE(pool.find("never interned"), kEmptyString);
    }

    void idsAreDenseAndStableAcrossSegments()
    {
        StringPool pool;
        // 1023 fill the first segment (id 0 is ""), then 1024, 2048 and 4096-sized ones.
        constexpr int kCount = 10000;
        for (int i = 1; i <= kCount; ++i)
            QCOMPARE(pool.intern("s" + std::to_string(i)), StringId(i));
        QCOMPARE(pool.size(), std::size_t(kCount + 1));
        for (int i = 1; i <= kCount; ++i) {
            QCOMPARE(pool.get(StringId(i)), "s" + std::to_string(i));
            QCOMPARE(pool.intern("s" + std::to_string(i)), StringId(i));
            QCOMPARE(pool.find("s" + std::to_string(i)), StringId(i));
        }
        // Ids at each segment edge.
        QCOMPARE(pool.get(1023), std::string("s1023"));
        QCOMPARE(pool.get(1024), std::string("s1024"));
        QCOMPARE(pool.get(3071), std::string("s3071"));
        QCOMPARE(pool.get(3072), std::string("s3072"));
    }

    void readsOwnStringsWhileAnotherThreadGrowsThePool()
    {
        // One loader reads its few names in a tight loop while another interns enough
        // to grow the pool's storage many times, as a small report beside a big one.
        StringPool pool;
        std::vector<StringId> own;
        for (int i = 0; i < 8; ++i)
            own.push_back(pool.intern("own" + std::to_string(i)));
        std::atomic<bool> done { false };
        int mismatches = 0;
        std::thread reader([&] {
            while (!done.load(std::memory_order_relaxed))
                for (int i = 0; i < 8; ++i)
                    if (pool.get(own[std::size_t(i)]).size() != 4)
                        ++mismatches;
        });
        for (int i = 0; i < 1'000'000; ++i)
            pool.intern(std::to_string(i));
        done = true;
        reader.join();
        QCOMPARE(mismatches, 0);
        QCOMPARE(pool.size(), std::size_t(1'000'000 + 8 + 1));
    }

    void readsWhileOtherThreadsIntern()
    {
        StringPool pool;
        constexpr int kThreads = 4;
        constexpr int kPerThread = 20000;
        std::vector<std::vector<StringId>> ids(kThreads);
        std::vector<int> mismatches(kThreads, 0);
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&, t] {
                for (int i = 0; i < kPerThread; ++i) {
                    // Half the texts are shared between threads, half are the thread's own.
                    const auto text = (i % 2 ? "shared" : "t" + std::to_string(t) + "_") + std::to_string(i);
                    const auto id = pool.intern(text);
                    ids[t].push_back(id);
                    // Read back an earlier id while the others grow the pool.
                    const auto back = std::size_t(i) / 2;
                    const auto backText = (back % 2 ? "shared" : "t" + std::to_string(t) + "_") + std::to_string(back);
                    if (pool.get(id) != text || pool.get(ids[t][back]) != backText)
                        ++mismatches[t];
                }
            });
        for (auto &thread : threads)
            thread.join();
        for (int t = 0; t < kThreads; ++t)
            QCOMPARE(mismatches[t], 0);
        // kThreads own halves + one shared half + "".
        QCOMPARE(pool.size(), std::size_t(kThreads * kPerThread / 2 + kPerThread / 2 + 1));
        for (int t = 1; t < kThreads; ++t)
            for (int i = 1; i < kPerThread; i += 2)
                QCOMPARE(ids[t][std::size_t(i)], ids[0][std::size_t(i)]);
    }

    // A staged load's first stage reads names from a pool sharing the full capture's, which
    // the NVTX reader keeps interning into: same ids both ways, and reads stay valid while it
    // grows, also after the pool it shares with is gone.
    void sharedPoolsHoldTheSameStrings()
    {
        auto full = std::make_unique<StringPool>();
        const auto kernel = full->intern("kernel");
        StringPool first(StringPool::ShareWith { *full });
        QCOMPARE(first.get(kernel), std::string("kernel"));
        QCOMPARE(first.intern("kernel"), kernel);
        QCOMPARE(first.size(), full->size());
        int mismatches = 0;
        std::thread reader([&] {
            for (int i = 0; i < 200000; ++i)
                mismatches += first.get(kernel) != "kernel";
        });
        for (int i = 0; i < 100000; ++i)
            full->intern("nvtx" + std::to_string(i));
        reader.join();
        QCOMPARE(mismatches, 0);
        QCOMPARE(first.size(), std::size_t(100000 + 2));
        QCOMPARE(first.find("nvtx99999"), full->find("nvtx99999"));
        const auto last = full->find("nvtx99999");
        full.reset();
        QCOMPARE(first.get(last), std::string("nvtx99999"));
    }
};

QTEST_APPLESS_MAIN(TestStringPool)
#include "tst_string_pool.moc"
