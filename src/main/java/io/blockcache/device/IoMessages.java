package io.blockcache.device;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * Says what an {@link IOException} from opening or reading a file means, in plain words with the file's name: the
 * JDK's own messages are often the bare path ({@link AccessDeniedException}, {@link NoSuchFileException}) or a
 * decoder's "Input length = 1", which tell an operator nothing.
 *
 * <p>Thread rule: any thread (pure).
 */
public final class IoMessages {
    private IoMessages() {
    }

    /**
     * One phrase, e.g. {@code "/d/cache.img: permission denied (the user running blockcache needs read and write
     * access)"}.
     *
     * @param what the file as the message should name it when the exception does not (e.g. the path given)
     */
    public static String describe(Object what, IOException e) {
        String file = e instanceof FileSystemException fs && fs.getFile() != null ? fs.getFile() : String.valueOf(what);
        return switch (e) {
            case FileInUseException inUse -> inUse.getMessage();
            case AccessDeniedException denied -> file + ": permission denied (the user running blockcache needs"
                    + " read and write access to it)";
            case NoSuchFileException missing -> file + ": no such file or directory" + other(missing);
            case FileAlreadyExistsException exists -> file + ": already exists";
            case NotDirectoryException notDirectory -> file + ": a part of this path is not a directory";
            case CharacterCodingException coding -> file + ": not UTF-8 text";
            case FileSystemException fs when fs.getReason() != null -> file + ": " + lower(fs.getReason())
                    + other(fs);
            default -> e.getMessage() == null ? file + ": " + e.getClass().getSimpleName()
                    : e.getMessage().contains(file) ? e.getMessage() : file + ": " + e.getMessage();
        };
    }

    private static String other(FileSystemException e) {
        return e.getOtherFile() == null ? "" : " (with " + e.getOtherFile() + ")";
    }

    private static String lower(String reason) {
        return reason.isEmpty() ? reason : Character.toLowerCase(reason.charAt(0)) + reason.substring(1);
    }
}
