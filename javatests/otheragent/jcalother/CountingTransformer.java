package jcalother;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Rewrites every method with code of the classes of jcaltest.work to call
 * Counter.hit() first (ASM). The call moves the original first
 * instruction to offset 3; a branch back to it (a loop at the start of a
 * method) then needs a stack map frame there, which the initial frame gave
 * implicitly before: one is written (the method's initial frame) unless
 * the class has its own frame there.
 */
public final class CountingTransformer implements ClassFileTransformer {
	@Override
	public byte[] transform(ClassLoader loader, String name, Class<?> redefined, ProtectionDomain pd, byte[] bytes) {
		if (name == null || !name.startsWith(OtherAgent.PREFIX))
			return null;
		try {
			ClassReader cr = new ClassReader(bytes);
			ClassWriter cw = new ClassWriter(0);
			boolean frames = (cr.readUnsignedShort(6) & 0xFFFF) >= 50;
			cr.accept(new ClassVisitor(Opcodes.ASM9, cw) {
				@Override
				public MethodVisitor visitMethod(int access, String mname, String desc, String sig, String[] exc) {
					MethodVisitor mv = super.visitMethod(access, mname, desc, sig, exc);
					return new Entry(mv, frames ? initialLocals(name, access, mname, desc) : null);
				}
			}, frames ? ClassReader.EXPAND_FRAMES : 0);
			OtherAgent.TRANSFORMED.incrementAndGet();
			return cw.toByteArray();
		} catch (Throwable e) {
			System.err.println("otheragent: cannot rewrite " + name + ": " + e);
			return null;
		}
	}

	/** Adds the call at entry, and the frame after it when needed. */
	static final class Entry extends MethodVisitor {
		private Object[] pending; /* the frame to write before the next instruction */

		Entry(MethodVisitor mv, Object[] initial) {
			super(Opcodes.ASM9, mv);
			pending = initial;
		}

		@Override
		public void visitCode() {
			super.visitCode();
			super.visitMethodInsn(Opcodes.INVOKESTATIC, "jcalother/Counter", "hit", "()V", false);
		}

		private void flush() {
			if (pending != null)
				super.visitFrame(Opcodes.F_NEW, pending.length, pending, 0, new Object[0]);
			pending = null;
		}

		@Override
		public void visitFrame(int type, int nLocal, Object[] local, int nStack, Object[] stack) {
			pending = null; /* the class's own frame at the first instruction */
			super.visitFrame(type, nLocal, local, nStack, stack);
		}

		@Override
		public void visitInsn(int op) {
			flush();
			super.visitInsn(op);
		}

		@Override
		public void visitIntInsn(int op, int operand) {
			flush();
			super.visitIntInsn(op, operand);
		}

		@Override
		public void visitVarInsn(int op, int var) {
			flush();
			super.visitVarInsn(op, var);
		}

		@Override
		public void visitTypeInsn(int op, String type) {
			flush();
			super.visitTypeInsn(op, type);
		}

		@Override
		public void visitFieldInsn(int op, String owner, String name, String desc) {
			flush();
			super.visitFieldInsn(op, owner, name, desc);
		}

		@Override
		public void visitMethodInsn(int op, String owner, String name, String desc, boolean itf) {
			flush();
			super.visitMethodInsn(op, owner, name, desc, itf);
		}

		@Override
		public void visitInvokeDynamicInsn(String name, String desc, Handle bsm, Object... args) {
			flush();
			super.visitInvokeDynamicInsn(name, desc, bsm, args);
		}

		@Override
		public void visitJumpInsn(int op, Label label) {
			flush();
			super.visitJumpInsn(op, label);
		}

		@Override
		public void visitLdcInsn(Object value) {
			flush();
			super.visitLdcInsn(value);
		}

		@Override
		public void visitIincInsn(int var, int incr) {
			flush();
			super.visitIincInsn(var, incr);
		}

		@Override
		public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
			flush();
			super.visitTableSwitchInsn(min, max, dflt, labels);
		}

		@Override
		public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
			flush();
			super.visitLookupSwitchInsn(dflt, keys, labels);
		}

		@Override
		public void visitMultiANewArrayInsn(String desc, int dims) {
			flush();
			super.visitMultiANewArrayInsn(desc, dims);
		}
	}

	/** The verifier's frame at a method's entry. */
	static Object[] initialLocals(String owner, int access, String name, String desc) {
		List<Object> l = new ArrayList<>();
		if ((access & Opcodes.ACC_STATIC) == 0)
			l.add(name.equals("<init>") ? Opcodes.UNINITIALIZED_THIS : owner);
		for (Type t : Type.getArgumentTypes(desc)) {
			switch (t.getSort()) {
			case Type.BOOLEAN:
			case Type.BYTE:
			case Type.CHAR:
			case Type.SHORT:
			case Type.INT:
				l.add(Opcodes.INTEGER);
				break;
			case Type.FLOAT:
				l.add(Opcodes.FLOAT);
				break;
			case Type.LONG:
				l.add(Opcodes.LONG);
				break;
			case Type.DOUBLE:
				l.add(Opcodes.DOUBLE);
				break;
			case Type.ARRAY:
				l.add(t.getDescriptor());
				break;
			default:
				l.add(t.getInternalName());
			}
		}
		return l.toArray();
	}
}
